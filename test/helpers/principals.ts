/**
 * A bridge with named principals and an access policy, for the tests of "who may call what" (the forward direction's
 * integration test, the console's API and browser tests): alice (eng) may call everything, bob (sales) not the mail
 * tools, nobody else the doorbell, OAuth users no calculator (a rule without id).
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
