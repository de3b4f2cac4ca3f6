/**
 * A bridge with named principals and an access policy, for the tests of "who may call what" (the forward direction's
 * integration test, the console's API and browser tests): alice (eng) may call everything, bob (sales) not the mail
 * tools, nobody else the doorbell, OAuth users no calculator (a rule without id). And, as plain config objects for
 * either command, the two callers and the sales policy the call gate's tests (both directions), the oxp-server's limits
 * and audit test and its console's refused calls share.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';

export const ALICE = 'alice-console-token-3f9a1c0d5e7b';
export const BOB = 'bob-console-token-8c2e4f6a1b3d5e';
export const ENV = { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB };
export const POLICY = `
auth:
  anonymous: { name: laptop, groups: [local] }
  tokens:
    - { name: alice, value: { env: ALICE_TOKEN }, groups: [eng] }
    - { name: bob, value: { env: BOB_TOKEN }, groups: [sales] }
access:
  rules:
    - { id: eng-all, effect: allow, principals: { groups: [eng] } }
    - { id: no-doorbell, effect: deny, tools: { names: [Doorbell_*] } }
    - { id: no-mail, effect: deny, principals: { groups: [sales] }, tools: { oxpIds: [Gmail.*] } }
    - { effect: deny, principals: { kinds: [oauth] }, tools: { names: [Calculator_*] } }
`;

export function writeConfig(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bridge-access-')), 'bridge.yaml');
  writeFileSync(file, text);
  return file;
}

export async function startWithConfig(text: string, fixtureUrl: string, env: Record<string, string> = ENV): Promise<RunningBridge> {
  const loaded = loadConfig(['--config', writeConfig(text), '--oxp-url', fixtureUrl, '--port', '0', '--log-level', 'silent'], env);
  if (typeof loaded === 'string') throw new Error(loaded);
  return startBridge(loaded.config, createLogger('silent'), env);
}

/** alice (group eng) and bob (group sales), their credentials read from the named variables: `auth.tokens` or `oxpServer.apiKeys`. */
export function aliceAndBob(aliceEnv: string, bobEnv: string) {
  return [
    { name: 'alice', value: { env: aliceEnv }, groups: ['eng'] },
    { name: 'bob', value: { env: bobEnv }, groups: ['sales'] },
  ];
}

/** The `access` section: sales may not call Fx.add (rule `sales-no-add`) and calls within a budget of `burst`, then 1 a minute (`sales-budget`). */
export function salesPolicy(burst: number) {
  return {
    rules: [
      { id: 'sales-no-add', effect: 'deny', principals: { groups: ['sales'] }, tools: { oxpIds: ['Fx.add'] } },
      { id: 'sales-budget', effect: 'allow', principals: { groups: ['sales'] }, limits: { requestsPerMinute: 1, burst } },
    ],
  };
}
