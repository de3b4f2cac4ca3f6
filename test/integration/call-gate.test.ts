/**
 * The call gate (src/calls/gate.ts) is one per-call step for both directions: the same table of calls — allowed,
 * denied by a rule, let through and then refused by a rule's limit, an unknown tool — made by the same principals
 * under the same access section, once through the forward bridge (MCP over HTTP → OXP fixture) and once through
 * oxp-server (OXP over HTTP → MCP fixture), each with real clients and real upstreams. The gate's record of each call
 * (the audit trail's line) must say the same thing in both directions: the decision, the outcome, the rule, the
 * principal, the tool's OXP id and the arguments' keys; only the protocol, and the unknown tool's outcome (each
 * face's own word for it), differ. So must the per-call log line (the gate writes it too): one per call, whatever
 * the call came to, with the same fields (each command's message and level: `tool call` at info forward, `OXP call`
 * at debug in reverse). A new per-call step is checked here once for both: the order of the steps (an invalid call is
 * refused before any limit counts it), and the cap on each caller's calls in flight (access.maxInFlightPerPrincipal).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { fixtureTools, startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { httpPathArgs, MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { eventually, OxpClient, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { aliceAndBob, salesPolicy } from '../helpers/principals.js';

const ALICE = 'alice-gate-token-4b7e1c9d2a6f';
const BOB = 'bob-gate-token-9d2c5e8a1f3b7';

/**
 * The same access section for both commands: rules by group and OXP id, so each direction's tools match alike; one
 * call in flight per caller.
 */
const ACCESS = { ...salesPolicy(1), maxInFlightPerPrincipal: 1 };

type Tool = 'echo' | 'add' | 'missing' | 'slow' | 'hold';

/** The `hold` tool of both upstreams: runs until the test lets it go; `holding` counts the calls it holds. */
const held = {
  holding: 0,
  waiters: [] as (() => void)[],
  async run(): Promise<void> {
    this.holding++;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.holding--;
  },
  release(): void {
    for (const wake of this.waiters.splice(0)) wake();
  },
};

interface Case {
  what: string;
  who: 'alice' | 'bob';
  tool: Tool;
  args: Record<string, unknown>;
  decision: 'allowed' | 'denied' | 'limited';
  /** The outcome, the same in both directions unless each face has its own word for it. */
  outcome: string | { forward: string; reverse: string };
  rule?: string;
  /** The record names the tool's OXP id (a tool that resolved, or the id asked for). */
  oxpId?: RegExp;
  /** The client goes away while the tool runs. */
  cancel?: boolean;
}

/** In order: bob's budget (burst 1) lets his first call through and refuses the next. */
const CASES: Case[] = [
  { what: 'allowed, no rule', who: 'alice', tool: 'echo', args: { text: 'hi' }, decision: 'allowed', outcome: 'success', oxpId: /^Fx\.echo_text@/ },
  { what: 'denied by a rule', who: 'bob', tool: 'add', args: { a: 1, b: 2 }, decision: 'denied', outcome: 'denied', rule: 'sales-no-add', oxpId: /^Fx\.add@/ },
  {
    what: 'invalid input under a rule with a limit: refused before the limit counts it',
    who: 'bob',
    tool: 'echo',
    args: { text: 5 },
    decision: 'allowed',
    outcome: 'invalid_input',
    rule: 'sales-budget',
    oxpId: /^Fx\.echo_text@/,
  },
  // Bob's one call of his budget: still there after the invalid call.
  { what: 'allowed by a rule with a limit', who: 'bob', tool: 'echo', args: { text: 'one' }, decision: 'allowed', outcome: 'success', rule: 'sales-budget' },
  { what: 'over the rule’s limit', who: 'bob', tool: 'echo', args: { text: 'two' }, decision: 'limited', outcome: 'rate_limited', rule: 'sales-budget' },
  { what: 'an unknown tool', who: 'alice', tool: 'missing', args: { x: 1 }, decision: 'allowed', outcome: { forward: 'unknown_tool', reverse: 'refused' } },
  { what: 'invalid input', who: 'alice', tool: 'echo', args: { text: 5 }, decision: 'allowed', outcome: 'invalid_input', oxpId: /^Fx\.echo_text@/ },
  {
    what: 'cancelled by its client',
    who: 'alice',
    tool: 'slow',
    args: { ms: 5000 },
    decision: 'allowed',
    outcome: 'cancelled',
    oxpId: /^Fx\.slow@/,
    cancel: true,
  },
];

/** The per-call log line, as both commands write it. */
interface LogLine {
  msg: string;
  level: number;
  call_id?: string;
  tool?: string;
  upstream?: string;
  oxp_tool?: string;
  protocol_version: string;
  principal?: string;
  rule?: { id?: string };
  outcome: string;
  duration_ms?: number;
}

/** Captures a logger's lines. */
function logTo(lines: LogLine[]) {
  return { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) };
}

/** Sends, and for a case that cancels, goes away once the call has had time to reach its tool. */
async function send(url: string, init: RequestInit, cancel: boolean | undefined): Promise<Response | undefined> {
  if (!cancel) return fetch(url, init);
  const abort = new AbortController();
  const sent = fetch(url, { ...init, signal: abort.signal }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  abort.abort();
  return sent.then(() => undefined);
}

interface Record_ {
  type: string;
  decision: string;
  outcome: string;
  rule?: { id?: string };
  principal: { name: string };
  protocol: string;
  tool: { name?: string; oxpId?: string; upstream?: string };
  argumentKeys?: string[];
}

interface Direction {
  name: 'forward' | 'reverse';
  protocol: RegExp;
  /** The per-call line's message, and its level. */
  line: { msg: string; level: number };
  /** Makes the call; its answer (the JSON-RPC message, or the OXP body), unless the case cancels it. */
  call(c: Pick<Case, 'who' | 'tool' | 'args' | 'cancel'>): Promise<unknown>;
  records(count: number): Promise<Record_[]>;
  /** Forward: one JSON-RPC request at a revision, its one answer. */
  rpc?: (who: 'alice' | 'bob', revision: string, method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  lines: LogLine[];
  close(): Promise<void>;
}

const auditLines = (file: string): Record_[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record_)
    .filter((r) => r.type === 'call');

/** The forward fixture publishes the reverse fixture's tools under the same OXP ids. */
function forwardTools(): FixtureTool[] {
  const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });
  return [
    {
      id: 'Fx.echo_text',
      name: 'echo_text',
      version: '1.0.0',
      description: 'Echoes',
      input_schema: schema({ text: { type: 'string' } }),
      handler: (r) => ({ value: r.input?.['text'] }),
    },
    {
      id: 'Fx.add',
      name: 'add',
      version: '1.0.0',
      description: 'Adds',
      input_schema: schema({ a: { type: 'number' }, b: { type: 'number' } }),
      handler: () => ({ value: 3 }),
    },
    {
      id: 'Fx.hold',
      name: 'hold',
      version: '1.0.0',
      description: 'Runs until the test lets it go',
      input_schema: schema({}),
      handler: async () => (await held.run(), { value: 'released' }),
    },
    {
      id: 'Fx.slow',
      name: 'slow',
      version: '1.0.0',
      description: 'Waits',
      input_schema: schema({ ms: { type: 'integer' } }),
      handler: async (r) => {
        await new Promise((done) => setTimeout(done, Math.min(Number(r.input?.['ms'] ?? 0), 1_000)));
        return { value: 'done' };
      },
    },
  ];
}

async function forward(dir: string): Promise<Direction> {
  const auditFile = join(dir, 'forward.jsonl');
  const fixture: OxpFixtureServer = await startOxpFixture({ tools: forwardTools() });
  const config = writeConfigFile({
    auth: {
      tokens: aliceAndBob('ALICE_TOKEN', 'BOB_TOKEN'),
    },
    access: ACCESS,
    audit: { sink: 'file', path: auditFile },
  });
  const env = { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB };
  const loaded = loadConfig([...httpPathArgs(), '--config', config, '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], env);
  if (typeof loaded === 'string') throw new Error(loaded);
  const lines: LogLine[] = [];
  const bridge = await startBridge(loaded.config, createLogger('info', logTo(lines)), env).catch(async (error: unknown) => {
    await fixture.close();
    throw error;
  });
  const mcpUrl = bridge.mcpUrl!;
  const names: Record<Tool, string> = { echo: 'echo_text', add: 'add', missing: 'no_such_tool', slow: 'slow', hold: 'hold' };
  let id = 0;
  return {
    name: 'forward',
    protocol: /^mcp\/2025-06-18$/,
    line: { msg: 'tool call', level: 30 },
    lines,
    call: async ({ who, tool, args, cancel }) => {
      const res = await send(
        mcpUrl,
        {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${who === 'alice' ? ALICE : BOB}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: names[tool], arguments: args } }),
        },
        cancel,
      );
      if (!res) return undefined;
      const messages = await readMessages(res);
      assert.equal(messages.length, 1, 'one answer');
      return messages[0];
    },
    records: async (count) => {
      await eventually(async () => (await bridge.audit.flush(), auditLines(auditFile).length >= count), 10_000, 'every call recorded');
      return auditLines(auditFile);
    },
    rpc: async (who, revision, method, params) => {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': revision, authorization: `Bearer ${who === 'alice' ? ALICE : BOB}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
      return (await readMessages(res))[0]!;
    },
    close: async () => {
      await bridge.close();
      await fixture.close();
    },
  };
}

async function reverse(dir: string): Promise<Direction> {
  const auditFile = join(dir, 'reverse.jsonl');
  const hold = {
    name: 'hold',
    description: 'Runs until the test lets it go',
    inputSchema: { type: 'object', properties: {} },
    run: async () => (await held.run(), { result: { content: [{ type: 'text' as const, text: 'released' }] } }),
  };
  const fx: McpHttpFixture = await startMcpHttpFixture({ version: '1.0.0', tools: [...fixtureTools(), hold] });
  const config = writeConfigFile({
    oxpServer: {
      apiKeys: aliceAndBob('ALICE_KEY', 'BOB_KEY'),
    },
    access: ACCESS,
    audit: { path: auditFile },
  });
  const lines: LogLine[] = [];
  const keys = { ALICE_KEY: ALICE, BOB_KEY: BOB };
  const server: TestOxpServer = await startTestOxpServer(['--config', config, '--mcp-url', `Fx=${fx.url}`], keys, createLogger('debug', logTo(lines))).catch(
    async (error: unknown) => {
      await fx.close();
      throw error;
    },
  );
  const ids = (await new OxpClient(server.url, { 'oxp-api-key': ALICE }).list()).map((t) => String(t.id));
  const idOf: Record<Tool, string> = {
    echo: ids.find((i) => i.startsWith('Fx.echo_text'))!,
    add: 'Fx.add',
    missing: 'Fx.no_such_tool',
    slow: ids.find((i) => i.startsWith('Fx.slow'))!,
    hold: ids.find((i) => i.startsWith('Fx.hold'))!,
  };
  return {
    name: 'reverse',
    protocol: /^oxp\/1\.0$/,
    line: { msg: 'OXP call', level: 20 },
    lines,
    call: async ({ who, tool, args, cancel }) => {
      const headers = { 'content-type': 'application/json', 'oxp-api-key': who === 'alice' ? ALICE : BOB };
      const body = JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: idOf[tool], input: args } });
      const res = await send(`${server.url}/tools/call`, { method: 'POST', headers, body }, cancel);
      return res ? await res.json() : undefined;
    },
    records: async (count) => {
      await eventually(async () => (await server.audit.flush(), auditLines(auditFile).length >= count), 10_000, 'every call recorded');
      return auditLines(auditFile);
    },
    close: async () => {
      await server.close();
      await fx.close();
    },
  };
}

describe('the call gate: one table of calls, both directions, the same record', () => {
  const dir = mkdtempSync(join(tmpdir(), 'call-gate-'));
  const directions: Direction[] = [];

  before(async () => {
    directions.push(await forward(dir));
    directions.push(await reverse(dir));
  });
  after(async () => {
    for (const d of directions) await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['forward', 'reverse'] as const) {
    it(`${name}: one record per call, as the table says`, async () => {
      const direction = directions.find((d) => d.name === name)!;
      for (const [i, c] of CASES.entries()) {
        await direction.call(c);
        // One at a time: a cancelled call is recorded once its end reaches the gate.
        await direction.records(i + 1);
      }
      const records = await direction.records(CASES.length);
      assert.equal(records.length, CASES.length, JSON.stringify(records));
      const lines = direction.lines.filter((l) => l.msg === direction.line.msg);
      assert.equal(lines.length, CASES.length, `one log line per call: ${JSON.stringify(lines)}`);
      CASES.forEach((c, i) => {
        const r = records[i]!;
        const l = lines[i]!;
        const line = `${name}, ${c.what}, the log line: ${JSON.stringify(l)}`;
        assert.equal(l.level, direction.line.level, line);
        assert.equal(l.outcome, r.outcome, line);
        assert.equal(l.principal, c.who, line);
        assert.equal(l.rule?.id, c.rule, line);
        if (c.oxpId) assert.match(l.oxp_tool ?? '', c.oxpId, line);
        if (c.tool !== 'missing') assert.equal(l.upstream, name === 'forward' ? 'default' : 'Fx', line);
        assert.match(l.protocol_version, name === 'forward' ? /^2025-06-18$/ : /^oxp-1\.0$/, line);
        // Measured from the request in forward; in reverse from the tool's run (a call refused before has none).
        if (name === 'forward' || (c.decision === 'allowed' && r.outcome !== 'refused' && r.outcome !== 'invalid_input'))
          assert.equal(typeof l.duration_ms, 'number', line);
        const where = `${name}, ${c.what}: ${JSON.stringify(r)}`;
        assert.equal(r.decision, c.decision, where);
        assert.equal(r.outcome, typeof c.outcome === 'string' ? c.outcome : c.outcome[name], where);
        assert.equal(r.rule?.id, c.rule, where);
        assert.equal(r.principal.name, c.who, where);
        assert.match(r.protocol, direction.protocol, where);
        if (c.oxpId) assert.match(r.tool.oxpId ?? '', c.oxpId, where);
        if (c.tool !== 'missing') assert.equal(r.tool.upstream, name === 'forward' ? 'default' : 'Fx', where);
        assert.deepEqual(r.argumentKeys, Object.keys(c.args).sort(), where);
      });
    });
  }

  for (const name of ['forward', 'reverse'] as const) {
    it(`${name}: a caller's calls in flight are capped (access.maxInFlightPerPrincipal), every tool together`, async () => {
      const direction = directions.find((d) => d.name === name)!;
      const before = CASES.length;
      const echo = { who: 'alice', tool: 'echo', args: { text: 'hi' } } as const;
      const holding = direction.call({ who: 'alice', tool: 'hold', args: {} });
      await eventually(() => held.holding === 1, 10_000, 'the held call reaches its tool');
      const answer = JSON.stringify(await direction.call(echo));
      assert.match(answer, /at most 1 for your calls running at once, to any tool/, answer);
      assert.match(answer, /retry_after_ms/, answer);
      const refused = (await direction.records(before + 1))[before]!;
      assert.equal(refused.decision, 'limited', JSON.stringify(refused));
      assert.equal(refused.outcome, 'too_many_in_flight', JSON.stringify(refused));
      assert.equal(refused.principal.name, 'alice');
      assert.equal(refused.rule, undefined);
      held.release();
      await holding;
      // The held call's slot is given back with its record: the next call runs.
      assert.match(JSON.stringify(await direction.call(echo)), /hi/);
      const records = await direction.records(before + 3);
      assert.deepEqual(
        records.slice(before).map((r) => `${r.decision} ${r.outcome}`),
        ['limited too_many_in_flight', 'allowed success', 'allowed success'],
      );
    });
  }

  it("forward: a task holds its caller's slot until it ends", async () => {
    const direction = directions.find((d) => d.name === 'forward')!;
    const rpc = direction.rpc!;
    const echo = { name: 'echo_text', arguments: { text: 'hi' } };
    const created = await rpc('alice', '2025-11-25', 'tools/call', { name: 'hold', arguments: {}, task: { ttl: 60_000 } });
    const taskId = (created.result as { task?: { taskId?: string } } | undefined)?.task?.taskId;
    assert.ok(taskId, JSON.stringify(created));
    await eventually(() => held.holding === 1, 10_000, 'the task reaches its tool');
    // The request that made the task is answered; its call, running on, holds alice's one slot.
    const refused = JSON.stringify(await rpc('alice', '2025-11-25', 'tools/call', echo));
    assert.match(refused, /too_many_in_flight/, refused);
    held.release();
    await eventually(
      async () => ((await rpc('alice', '2025-11-25', 'tasks/get', { taskId })).result as { status?: string } | undefined)?.status === 'completed',
      10_000,
      'the task completed',
    );
    const ran = JSON.stringify(await rpc('alice', '2025-11-25', 'tools/call', echo));
    assert.doesNotMatch(ran, /too_many_in_flight/, ran);
    assert.match(ran, /hi/, ran);
  });
});
