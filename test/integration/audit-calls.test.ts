/**
 * The audit trail written by real calls, through the real CLI: 1,000 MCP
 * tools/call from two named principals, some allowed, some denied by a rule,
 * some refused by a rule's limit, under concurrency; then SIGTERM. The file
 * holds exactly one record per call, and its decisions match what the
 * clients were answered; each record names the principal, the client
 * address, the revision, the tool (MCP name, OXP id, upstream), the rule,
 * the outcome, the duration, call_id and argument keys; no argument value,
 * tool secret or developer_message (canaries) ever reaches it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOxpFixture, demoFixtureTools, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';

const CALLS = 1000;
const CANARY_ARG = 'CANARY-ARG-51c0e7d2';
const CANARY_SECRET = 'CANARY-SECRET-9a4f2b11';
const CANARY_DEV = 'CANARY-DEVMSG-0d3e8c77';
const ALICE = 'alice-audit-token-5e1f0a9c3b7d';
const BOB = 'bob-audit-token-2c8d4f6a1e3b5';

type AuditLine = {
  type: string;
  decision: string;
  outcome: string;
  rule?: { index: number; id?: string };
  principal: { name: string; kind: string; groups?: string[] };
  client?: string;
  protocol: string;
  tool: { name?: string; oxpId?: string; upstream?: string };
  durationMs?: number;
  callId?: string;
  argumentKeys?: string[];
};

describe('audit trail: one record per call decision, under load and across SIGTERM', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-calls-'));
  const auditFile = join(dir, 'audit.jsonl');
  let fixture: OxpFixtureServer;
  let cli: CliProcess;

  before(async () => {
    fixture = await startOxpFixture({
      tools: [
        ...demoFixtureTools(),
        {
          id: 'Vault.Open',
          name: 'Vault_Open',
          version: '1.0.0',
          description: 'Needs a secret; fails with a developer message',
          input_schema: { type: 'object', properties: { door: { type: 'string' } } },
          requirements: { secrets: [{ id: 'vault_key' }] },
          handler: () => ({ error: { message: 'The vault is stuck.', developer_message: `stuck: ${CANARY_DEV}`, can_retry: false } }),
        },
      ],
    });
    const config = join(dir, 'bridge.json');
    writeFileSync(
      config,
      JSON.stringify({
        auth: {
          tokens: [
            { name: 'alice', value: { env: 'ALICE_TOKEN' }, groups: ['staff'] },
            { name: 'bob', value: { env: 'BOB_TOKEN' }, groups: ['interns'] },
          ],
        },
        access: {
          rules: [
            { id: 'interns-no-doorbell', effect: 'deny', principals: { groups: ['interns'] }, tools: { names: ['Doorbell_*'] } },
            { id: 'interns-budget', effect: 'allow', principals: { groups: ['interns'] }, limits: { requestsPerMinute: 1, burst: 100 } },
          ],
        },
        audit: { sink: 'file', path: auditFile },
      }),
    );
    cli = await startCli(['--config', config, '--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'], {
      ALICE_TOKEN: ALICE,
      BOB_TOKEN: BOB,
      OXP_SECRET_VAULT_KEY: CANARY_SECRET,
    });
  });
  after(async () => {
    cli?.child.kill('SIGKILL');
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Call i of the mix: alice's allowed calls, bob's doorbell (denied) and his budgeted calls (100 pass, then limited). */
  const plan = (i: number): { token: string; name: string; args: Record<string, unknown> } => {
    switch (i % 5) {
      case 0:
        return { token: ALICE, name: 'Text_Echo', args: { text: `${CANARY_ARG}-${i}` } };
      case 1:
        return { token: BOB, name: 'Doorbell_Ring', args: { doorbell_id: CANARY_ARG } };
      case 2:
        return { token: BOB, name: 'Calculator_Add', args: { a: i, b: 1 } };
      case 3:
        return { token: ALICE, name: 'Vault_Open', args: { door: CANARY_ARG } };
      default:
        return { token: ALICE, name: 'Calculator_Add', args: { a: i, b: 2 } };
    }
  };

  const call = async (i: number): Promise<string> => {
    const { token, name, args } = plan(i);
    const res = await fetch(cli.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: args } }),
    });
    const [msg] = await readMessages(res);
    if (msg?.error) return 'unknown';
    const result = msg!.result as { isError?: boolean; _meta?: { 'mcp-oxp-bridge/error'?: { kind?: string } } };
    const kind = result._meta?.['mcp-oxp-bridge/error']?.kind;
    return kind === 'rate_limited' ? 'limited' : 'answered';
  };

  it(`${CALLS} calls (16 at a time), then SIGTERM: ${CALLS} records whose decisions match the answers`, async () => {
    const answers: string[] = new Array<string>(CALLS);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < CALLS) {
          const i = next++;
          answers[i] = await call(i);
        }
      }),
    );
    // The sink's counts on /metrics: every record made, none lost.
    const metrics = await (await fetch(new URL('/metrics', cli.url))).text();
    assert.match(metrics, new RegExp(`^mcp_oxp_bridge_audit_records_total ${CALLS}$`, 'm'));
    assert.match(metrics, /^mcp_oxp_bridge_audit_records_lost_total 0$/m);
    const closed = once(cli.child, 'close');
    assert.equal(await cli.stop(), 0);
    await closed;
    const records = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditLine)
      .filter((r) => r.type === 'call');
    assert.equal(records.length, CALLS);
    const count = (what: (r: AuditLine) => boolean) => records.filter(what).length;
    assert.equal(
      count((r) => r.decision === 'denied'),
      answers.filter((a) => a === 'unknown').length,
    );
    assert.equal(
      count((r) => r.decision === 'denied'),
      CALLS / 5,
    );
    assert.equal(
      count((r) => r.decision === 'limited'),
      answers.filter((a) => a === 'limited').length,
    );
    assert.ok(count((r) => r.decision === 'limited') >= CALLS / 5 - 100 - 2, 'bob is limited after his burst');
    assert.equal(
      count((r) => r.decision === 'allowed'),
      answers.filter((a) => a === 'answered').length,
    );

    const denied = records.find((r) => r.decision === 'denied')!;
    assert.deepEqual(denied.rule, { index: 0, id: 'interns-no-doorbell' });
    assert.deepEqual(denied.principal, { name: 'bob', kind: 'token', groups: ['interns'] });
    assert.deepEqual(denied.tool, { name: 'Doorbell_Ring', oxpId: 'Doorbell.Ring@0.1.0', upstream: 'default' });
    assert.deepEqual(denied.argumentKeys, ['doorbell_id']);
    const limited = records.find((r) => r.decision === 'limited')!;
    assert.deepEqual(limited.rule, { index: 1, id: 'interns-budget' });
    assert.equal(limited.outcome, 'rate_limited');
    const echoed = records.find((r) => r.tool.name === 'Text_Echo')!;
    assert.equal(echoed.outcome, 'success');
    assert.equal(echoed.protocol, 'mcp/2025-06-18');
    assert.match(echoed.client ?? '', /127\.0\.0\.1/);
    assert.match(echoed.callId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(typeof echoed.durationMs, 'number');
    assert.equal(records.find((r) => r.tool.name === 'Vault_Open')!.outcome, 'tool_error');

    const text = readFileSync(auditFile, 'utf8');
    for (const canary of [CANARY_ARG, CANARY_SECRET, CANARY_DEV, ALICE, BOB]) assert.ok(!text.includes(canary), `${canary} in the audit file`);
  });
});
