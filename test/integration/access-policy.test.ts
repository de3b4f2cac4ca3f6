/**
 * Named principals and the access policy on the MCP face: two static tokens
 * with names and groups see different tools/list at every revision (every
 * client kind), a call to a tool the policy hides is answered byte for byte
 * as an unknown tool's, a list that depends on the caller is
 * `cacheScope: "private"` (2026-07-28), and a policy reload that changes
 * what a stdio client sees sends it `notifications/tools/list_changed`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, modernHeaders, MODERN_META, until } from '../helpers/bridge-harness.js';
import { ALL_CLIENT_SPECS, connectHttp, connectStdio, spec } from '../helpers/it-clients.js';
import { stdioCommand } from '../helpers/it-bridge.js';
import { exchange } from '../helpers/it-http.js';
import { ALICE, BOB, ENV, POLICY, writeConfig } from '../helpers/principals.js';

const withToken =
  (token: string) =>
  (url: string | URL, init?: RequestInit): Promise<Response> =>
    fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${token}` } });

describe('access policy: two named principals', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const loaded = loadConfig(['--config', writeConfig(POLICY), '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], ENV);
    if (typeof loaded === 'string') throw new Error(loaded);
    bridge = await startBridge(loaded.config, createLogger('silent'), ENV);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  for (const s of ALL_CLIENT_SPECS) {
    it(`${s.label}: each principal lists only what it may call; a hidden tool is called as an unknown one`, async () => {
      const alice = await connectHttp(s, bridge.mcpUrl!, { fetch: withToken(ALICE) });
      const bob = await connectHttp(s, bridge.mcpUrl!, { fetch: withToken(BOB) });
      try {
        const aliceNames = (await alice.listTools()).tools.map((t) => t.name);
        const bobNames = (await bob.listTools()).tools.map((t) => t.name);
        assert.ok(aliceNames.includes('Doorbell_Ring') && aliceNames.includes('Gmail_GetEmails'), aliceNames.join());
        assert.ok(!bobNames.includes('Doorbell_Ring') && !bobNames.includes('Gmail_GetEmails'), bobNames.join());
        assert.deepEqual(
          bobNames,
          aliceNames.filter((n) => n !== 'Doorbell_Ring' && n !== 'Gmail_GetEmails'),
        );
        await assert.rejects(bob.callTool('Gmail_GetEmails', {}), (e: Error) => /Unknown tool: Gmail_GetEmails/.test(e.message));
        // A typo gets the closest tool the caller may call; never one the policy hides from it (alice's guess shows the
        // same typo is close to the hidden tool, so bob's answer without one is not vacuous).
        const unknown = (client: typeof alice, name: string) =>
          client.callTool(name, {}).then(
            () => assert.fail(`${name} was called`),
            (e: Error) => e.message,
          );
        assert.match(await unknown(alice, 'Calculator_Ad'), /Unknown tool: Calculator_Ad \(did you mean Calculator_Add\?\)/);
        assert.match(await unknown(bob, 'Calculator_Ad'), /Unknown tool: Calculator_Ad \(did you mean Calculator_Add\?\)/);
        assert.match(await unknown(alice, 'gmail_getemail'), /Unknown tool: gmail_getemail \(did you mean Gmail_GetEmails\?\)/);
        assert.doesNotMatch(await unknown(bob, 'gmail_getemail'), /did you mean/);
        const allowed = await alice.callTool('Calculator_Add', { a: 1, b: 2 });
        assert.notEqual(allowed.isError, true);
        alice.log.assertValid(s.revision);
        bob.log.assertValid(s.revision);
        if (s.revision === '2026-07-28') {
          const listed = bob.log.lastResponse('tools/list').result as { cacheScope?: string };
          assert.equal(listed.cacheScope, 'private');
        }
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }

  it('a denied call and an unknown tool get the same answer, byte for byte (both eras)', async () => {
    const call = async (name: string, modern: boolean) => {
      const body = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name, arguments: { count: 'not a number' }, ...(modern ? { _meta: MODERN_META } : {}) },
      };
      const headers = modern ? modernHeaders('tools/call', name) : { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' };
      const res = await exchange(bridge.mcpUrl!, { headers: { ...headers, authorization: `Bearer ${BOB}` }, body });
      return { status: res.status, contentType: res.headers.get('content-type'), text: res.text.replaceAll(name, '<name>') };
    };
    for (const modern of [false, true]) {
      const denied = await call('Gmail_GetEmails', modern);
      const unknown = await call('Gmail_NoSuchTool', modern);
      assert.deepEqual(denied, unknown);
      assert.match(denied.text, /Unknown tool: <name>"/);
      // A name close to a tool bob may call: the same answer, with the guess, for a hidden tool as for an unknown one.
      assert.match((await call('Calculatr_Add', modern)).text, /Unknown tool: <name> \(did you mean Calculator_Add\?\)"/);
    }
  });
});

describe('access policy: a list that does not depend on the caller', () => {
  it('stays cacheScope "public" when no rule names principals', async () => {
    const fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const file = writeConfig(`access:\n  rules:\n    - { effect: deny, tools: { names: [Doorbell_*] } }\n`);
    const loaded = loadConfig(['--config', file, '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], {});
    if (typeof loaded === 'string') throw new Error(loaded);
    const bridge = await startBridge(loaded.config, createLogger('silent'), {});
    const session = await connectHttp(spec('v2-modern', '2026-07-28'), bridge.mcpUrl!);
    try {
      const names = (await session.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('Doorbell_Ring'));
      assert.equal((session.log.lastResponse('tools/list').result as { cacheScope?: string }).cacheScope, 'public');
    } finally {
      await session.close();
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('access policy: reload', () => {
  it('a reload that changes what the stdio client sees sends it tools/list_changed; one that does not, sends nothing', async () => {
    const fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const file = writeConfig(`auth:\n  anonymous: { name: laptop, groups: [local] }\naccess:\n  rules: []\n`);
    const session = await connectStdio(spec('v2-legacy', '2025-11-25'), stdioCommand(fixture.url, 'warn', ['--config', file]));
    try {
      assert.ok((await session.listTools()).tools.some((t) => t.name === 'Doorbell_Ring'));
      const before = session.log.received('notifications/tools/list_changed').length;
      // A rule for another group: this client's view is unchanged, so no notification.
      writeFileSync(
        file,
        `auth:\n  anonymous: { name: laptop, groups: [local] }\naccess:\n  rules:\n    - { effect: deny, principals: { groups: [other] }, tools: { names: ['*'] } }\n`,
      );
      await new Promise((r) => setTimeout(r, 2_500));
      assert.equal(session.log.received('notifications/tools/list_changed').length, before);
      const changed = session.log.next('notifications/tools/list_changed', 15_000);
      writeFileSync(
        file,
        `auth:\n  anonymous: { name: laptop, groups: [local] }\naccess:\n  rules:\n    - { effect: deny, principals: { groups: [local] }, tools: { names: [Doorbell_*] } }\n`,
      );
      await changed;
      await until(async () => !(await session.listTools()).tools.some((t) => t.name === 'Doorbell_Ring'));
      session.log.assertValid('2025-11-25');
    } finally {
      await session.close();
      await fixture.close();
    }
  });
});

describe('access policy: a limited call says what was limited', () => {
  // One rule per counter kind, each over one tool (the first call passes, the second is limited).
  const LIMITS = `${POLICY.replace(
    /access:\n {2}rules:\n/,
    `access:
  rules:
    - { id: per-caller, effect: allow, tools: { names: [Calculator_Add] }, limits: { requestsPerMinute: 1, burst: 1, per: principal } }
    - { id: per-tool, effect: allow, tools: { names: [Text_Echo] }, limits: { requestsPerMinute: 1, burst: 1, per: tool } }
    - { id: per-caller-tool, effect: allow, tools: { names: [System_GetTimestamp] }, limits: { requestsPerMinute: 1, burst: 1, per: principal-tool } }
`,
  )}`;
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const loaded = loadConfig(['--config', writeConfig(LIMITS), '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], ENV);
    if (typeof loaded === 'string') throw new Error(loaded);
    bridge = await startBridge(loaded.config, createLogger('silent'), ENV);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  for (const [tool, args, words] of [
    ['Calculator_Add', { a: 1, b: 2 }, 'for your calls to the tools this limit covers'],
    ['Text_Echo', { text: 'x' }, 'for calls to this tool, from every caller together'],
    ['System_GetTimestamp', {}, 'for your calls to this tool'],
  ] as const) {
    it(`${tool}: "${words}"`, async () => {
      const alice = await connectHttp(spec('v2-legacy', '2025-06-18'), bridge.mcpUrl!, { fetch: withToken(ALICE) });
      try {
        assert.notEqual((await alice.callTool(tool, args)).isError, true);
        const limited = await alice.callTool(tool, args);
        assert.equal(limited.isError, true);
        const text = (limited.content as { text: string }[])[0]!.text;
        assert.match(text, new RegExp(`^The call to ${tool} was not made: Rate limit exceeded: 1 request per minute ${words}\\. Try again in \\d+ s\\.$`));
      } finally {
        await alice.close();
      }
    });
  }
});
