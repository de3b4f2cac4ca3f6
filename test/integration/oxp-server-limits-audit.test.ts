/**
 * The oxp-server direction's limits and audit trail, over real HTTP with a
 * real MCP server upstream: a rule's limit refuses the call over it as the
 * tool's failure the OXP way (200, `success: false`, `can_retry`,
 * `retry_after_ms`; the MCP server never called), valid against the OpenAPI
 * schema; and every call decision — allowed with its outcome, denied by a
 * rule, refused by a limit, refused as an unknown id — leaves one audit
 * record (`protocol: "oxp/1.0"`) with the principal and the input's keys,
 * never its values.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { OxpClient, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { aliceAndBob, salesPolicy } from '../helpers/principals.js';

const ALICE = 'alice-key-3f9a1c0d5e7b2a64c1';
const BOB = 'bob-key-8c2e4f6a1b3d5e70d2';
const CANARY = 'CANARY-OXP-INPUT-7f3e';

type Line = {
  decision: string;
  outcome: string;
  protocol: string;
  principal: { name: string };
  rule?: { id?: string };
  tool: { oxpId?: string };
  argumentKeys?: string[];
};

describe('oxp-server: limits and the audit trail', () => {
  const auditFile = join(mkdtempSync(join(tmpdir(), 'oxp-audit-')), 'audit.jsonl');
  let fx: McpHttpFixture;
  let server: TestOxpServer;
  const alice = () => new OxpClient(server.url, { 'oxp-api-key': ALICE });
  const bob = () => new OxpClient(server.url, { 'oxp-api-key': BOB });

  before(async () => {
    fx = await startMcpHttpFixture({ version: '1.0.0' });
    const file = writeConfigFile({
      oxpServer: {
        apiKeys: aliceAndBob('ALICE_KEY', 'BOB_KEY'),
      },
      access: salesPolicy(2),
      audit: { path: auditFile },
    });
    server = await startTestOxpServer(['--config', file, '--mcp-url', `Fx=${fx.url}`], { ALICE_KEY: ALICE, BOB_KEY: BOB });
  });
  after(async () => {
    await server?.close();
    await fx?.close();
  });

  it('a call over its rule’s limit is the tool’s failure with when to retry, and never reaches the MCP server', async () => {
    const echo = (await alice().list()).map((t) => String(t.id)).find((id) => id.startsWith('Fx.echo_text'))!;
    for (let i = 0; i < 2; i++) {
      const ok = await bob().call(echo, { text: `${CANARY}-${i}` });
      assert.equal((ok.body.result as { success: boolean }).success, true);
    }
    const limited = await bob().call(echo, { text: CANARY });
    assert.equal(limited.status, 200);
    const result = limited.body.result as { success: boolean; error: { message: string; can_retry: boolean; retry_after_ms: number } };
    assert.equal(result.success, false);
    assert.equal(result.error.can_retry, true);
    assert.ok(result.error.retry_after_ms >= 1000);
    // The rule's limit counts bob's calls (limits.per defaults to the principal), and says so.
    assert.match(
      result.error.message,
      new RegExp(
        `^The call to \\S+ was not made: Rate limit exceeded: 1 request per minute for your calls to the tools this limit covers\\. Try again in \\d+ s\\.$`,
      ),
    );
    // alice's calls are not limited.
    for (let i = 0; i < 4; i++) assert.equal(((await alice().call(echo, { text: 'x' })).body.result as { success: boolean }).success, true);
  });

  it('leaves one record per decision: allowed, denied (with the rule), limited, unknown; keys only', async () => {
    const add = (await alice().list()).map((t) => String(t.id)).find((id) => id.startsWith('Fx.add'))!;
    const denied = await bob().call(add, { a: 1, b: 2 });
    assert.equal(denied.status, 400);
    await bob().call('Fx.no_such_tool', { a: 1 });
    await server.audit.flush();
    const lines = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    assert.ok(lines.every((l) => l.protocol === 'oxp/1.0'));
    const of = (decision: string, who: string) => lines.filter((l) => l.decision === decision && l.principal.name === who);
    assert.equal(of('allowed', 'bob').filter((l) => l.outcome === 'success').length, 2);
    assert.equal(of('allowed', 'alice').filter((l) => l.outcome === 'success').length, 4);
    assert.deepEqual(
      of('limited', 'bob').map((l) => [l.outcome, l.rule?.id]),
      [['rate_limited', 'sales-budget']],
    );
    const deny = of('denied', 'bob');
    assert.equal(deny.length, 1);
    assert.equal(deny[0]!.rule?.id, 'sales-no-add');
    assert.match(deny[0]!.tool.oxpId ?? '', /^Fx\.add@/);
    assert.deepEqual(deny[0]!.argumentKeys, ['a', 'b']);
    assert.ok(lines.some((l) => l.tool.oxpId === 'Fx.no_such_tool' && l.outcome === 'refused'));
    assert.ok(!readFileSync(auditFile, 'utf8').includes(CANARY));
  });
});
