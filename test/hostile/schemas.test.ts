/**
 * Hostile peers, untrusted schemas and values (issue 10): upstream schemas
 * with catastrophic regexes or absurd nesting, deep results, odd versions
 * and odd answers — in both directions. Every bridge runs as a child process
 * (a frozen event loop fails a test by timeout instead of hanging the
 * runner), and every case ends by checking the process still answers its
 * health endpoint within a second.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { stdioCommand } from '../helpers/it-bridge.js';
import { commandLine } from '../helpers/oxp-server-harness.js';
import { until } from '../helpers/bridge-harness.js';
import { startBridgeProcess, type BridgeProcess } from './bridge-process.js';
import { assertHealthy, healthzOf } from './health.js';
import { hostileMcpCommand } from './hostile-mcp-server.js';
import { startHostileOxp, type HostileOxpServer } from './hostile-oxp-server.js';

/** Long enough for a loaded machine, far shorter than a backtracking regex on these inputs. */
const ANSWER_MS = 10_000;

const children: BridgeProcess[] = [];
async function spawnBridge(args: string[]): Promise<BridgeProcess> {
  const child = await startBridgeProcess(args);
  children.push(child);
  return child;
}

type Json = Record<string, unknown>;

/** One JSON-RPC request to the MCP endpoint (2025-06-18, no session). */
async function rpc(url: string, method: string, params: Json, id = 1): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    signal: AbortSignal.timeout(ANSWER_MS),
  });
  const messages = await readMessages(res);
  const answer = messages.find((m) => m.id === id);
  assert.ok(answer, `no answer to ${method} (HTTP ${res.status}): ${JSON.stringify(messages).slice(0, 500)}`);
  return answer;
}

async function toolNames(url: string): Promise<string[]> {
  const answer = await rpc(url, 'tools/list', {});
  assert.ok(answer.result, `tools/list failed: ${JSON.stringify(answer.error)}`);
  return ((answer.result as Json).tools as Json[]).map((t) => String(t.name));
}

async function callTool(url: string, name: string, args: Json): Promise<{ text: string; isError: boolean; kind?: string }> {
  const answer = await rpc(url, 'tools/call', { name, arguments: args });
  assert.ok(answer.result, `tools/call ${name} answered an error instead of a result: ${JSON.stringify(answer.error)}`);
  const result = answer.result as Json;
  const meta = (result._meta as Json | undefined)?.['mcp-oxp-bridge/error'] as Json | undefined;
  const text = (result.content as Json[]).map((c) => String(c.text)).join('\n');
  return { text, isError: result.isError === true, ...(meta ? { kind: String(meta.kind) } : {}) };
}

/** The bridge over stdio (a child process): initialize, then tools/list; the tool names listed. */
async function stdioToolNames(oxpUrl: string): Promise<string[]> {
  const { command, args, cwd, env } = stdioCommand(oxpUrl);
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    const answers = new Map<number, Json>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Json;
      if (typeof message.id === 'number') answers.set(message.id, message);
    });
    const send = (message: Json) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answer = async (id: number) => {
      const deadline = Date.now() + ANSWER_MS * 2;
      while (!answers.has(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(answers.has(id), `no stdio answer to request ${id}`);
      return answers.get(id)!;
    };
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile-test', version: '1.0.0' } } });
    await answer(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list', params: {} });
    const list = await answer(2);
    assert.ok(list.result, `tools/list over stdio failed: ${JSON.stringify(list.error)}`);
    return ((list.result as Json).tools as Json[]).map((t) => String(t.name));
  } finally {
    child.kill('SIGKILL');
  }
}

/** Starts `promise`, checks health while it may still be running (a frozen loop fails here), then awaits it. */
/** Whether a line passing `test` reaches `logs` within a few seconds (the log is written in batches, at least every second). */
function logged(logs: string[], test: (line: string) => boolean): Promise<boolean> {
  return until(() => logs.some(test)).then(
    () => true,
    () => false,
  );
}

async function healthyDuring<T>(health: string, promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await assertHealthy(health);
  return promise;
}

after(() => {
  for (const child of children) child.kill();
});

describe('hostile OXP upstreams: schemas and values', () => {
  let oxp: HostileOxpServer;
  before(async () => {
    oxp = await startHostileOxp();
  });
  after(async () => {
    await oxp.close();
  });

  const bridgeOn = async (scenario: string, extra: string[] = []) => {
    const child = await spawnBridge(['--oxp-url', oxp.url(scenario), '--port', '0', ...extra]);
    // Warm first: the MCP pipeline loads after the first readiness answer, and the SDK's module graph alone holds
    // the loop ~250 ms (several times that on a loaded CI machine, where a probe then missed its second once).
    // What these cases time is a hostile schema or value, not start-up.
    await toolNames(child.url);
    return { ...child, health: healthzOf(child.url) };
  };

  it('a catastrophic `pattern` is evaluated in linear time: the bad argument is refused, a good one passes', async () => {
    const bridge = await bridgeOn('redos-pattern');
    const bad = await healthyDuring(bridge.health, callTool(bridge.url, 'redos', { text: `${'a'.repeat(40)}!` }));
    assert.equal(bad.isError, true);
    assert.equal(bad.kind, 'invalid_input');
    assert.match(bad.text, /- text: must match pattern/);
    const good = await callTool(bridge.url, 'redos', { text: 'a'.repeat(100_000) });
    assert.deepEqual(good, { text: 'ok', isError: false });
    await assertHealthy(bridge.health);
  });

  it('a catastrophic `patternProperties` key is evaluated in linear time on every argument name', async () => {
    const bridge = await bridgeOn('redos-pattern-properties');
    // The name does not match, so the property is not subject to the pattern's schema: valid, called.
    const passed = await healthyDuring(bridge.health, callTool(bridge.url, 'redos_keys', { [`${'a'.repeat(43)}!`]: 1 }));
    assert.deepEqual(passed, { text: 'ok', isError: false });
    // A name that matches is: the pattern still applies.
    const refused = await callTool(bridge.url, 'redos_keys', { aaaa: 1 });
    assert.equal(refused.kind, 'invalid_input');
    assert.match(refused.text, /- aaaa: must be string/);
    await assertHealthy(bridge.health);
  });

  it('a 5,000-deep input schema drops that tool only; tools/list serves the rest', async () => {
    const bridge = await bridgeOn('deep-schema');
    assert.deepEqual(await toolNames(bridge.url), ['normal']);
    assert.deepEqual(await callTool(bridge.url, 'normal', { text: 'x' }), { text: 'ok', isError: false });
    assert.ok(
      await logged(bridge.logs, (l) => /Hostile\.deep/.test(l) && /nests deeper than 64/.test(l)),
      `no log line names the dropped tool:\n${bridge.logs.join('\n')}`,
    );
    await assertHealthy(bridge.health);
    const ready = await fetch(new URL('/readyz', bridge.url), { signal: AbortSignal.timeout(ANSWER_MS) });
    assert.equal(ready.status, 200);
  });

  it('a 5,000-deep input schema drops that tool only over stdio too', async () => {
    assert.deepEqual(await stdioToolNames(oxp.url('deep-schema')), ['normal']);
  });

  it('a 5,000-deep result value is a clear tool error, not -32603 "Maximum call stack"', async () => {
    const bridge = await bridgeOn('deep-result');
    const reply = await healthyDuring(bridge.health, callTool(bridge.url, 'normal', { text: 'x' }));
    assert.equal(reply.isError, true);
    assert.equal(reply.kind, 'upstream_protocol_error');
    assert.match(reply.text, /nested more than 100 levels deep/);
    await assertHealthy(bridge.health);
  });

  it('a version beyond safe integers beside a normal one keeps the catalog; versions compare as numbers', async () => {
    const bridge = await bridgeOn('huge-version');
    assert.deepEqual(await toolNames(bridge.url), ['normal', 'versioned']);
    assert.deepEqual(await callTool(bridge.url, 'versioned', {}), { text: 'ok', isError: false });
    const calls = oxp.hits('huge-version').filter((h) => h.method === 'POST');
    assert.equal((JSON.parse(calls.at(-1)!.body) as { request: { tool_id: string } }).request.tool_id, 'Hostile.versioned@99999999999999999999.0.0');
    await assertHealthy(bridge.health);
  });

  it('{"result":[…]} is not a success with no output: it is a response the bridge could not understand', async () => {
    const bridge = await bridgeOn('result-array');
    const reply = await callTool(bridge.url, 'normal', {});
    assert.equal(reply.isError, true);
    assert.equal(reply.kind, 'upstream_protocol_error');
    await assertHealthy(bridge.health);
  });

  it('an upstream 413 is a clear "too large" refusal, not a protocol error', async () => {
    const bridge = await bridgeOn('too-large');
    const reply = await callTool(bridge.url, 'normal', { text: 'x' });
    assert.equal(reply.isError, true);
    assert.equal(reply.kind, 'precondition_failed');
    assert.match(reply.text, /too large/);
    await assertHealthy(bridge.health);
  });
});

describe('hostile MCP servers behind oxp-server: schemas and values', () => {
  const oxpServerOn = async (scenario: string) => {
    const { command, args } = hostileMcpCommand(scenario);
    const child = await spawnBridge(['oxp-server', '--mcp-command', `Hostile=${commandLine(command, args)}`, '--port', '0']);
    const health = `${child.url}/health`;
    // The port listens before upstreams connect: wait until the hostile server has connected and listed.
    await until(async () => {
      const res = await fetch(health, { signal: AbortSignal.timeout(ANSWER_MS) });
      const body = (await res.json()) as { upstreams?: { state?: string }[] };
      return res.status === 200 && body.upstreams?.[0]?.state === 'connected';
    }, 20_000);
    return { ...child, health };
  };
  const get = async (url: string) => {
    const res = await fetch(url, { signal: AbortSignal.timeout(ANSWER_MS) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const post = async (url: string, toolId: string, input: Json) => {
    const res = await fetch(`${url}/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: toolId, input } }),
      signal: AbortSignal.timeout(ANSWER_MS),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const ids = async (url: string) => ((await get(`${url}/tools`)).body.items as Json[]).map((t) => String(t.id));

  it('a catastrophic `pattern` from an MCP server is evaluated in linear time (422 for the bad input)', async () => {
    const server = await oxpServerOn('redos-pattern');
    const bad = await healthyDuring(server.health, post(server.url, 'Hostile.redos', { text: `${'a'.repeat(40)}!` }));
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.match(String((bad.body.parameter_errors as Json).text), /must match pattern/);
    const good = await post(server.url, 'Hostile.redos', { text: 'a'.repeat(100_000) });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.equal((good.body.result as Json).success, true);
    await assertHealthy(server.health, 'oxp-server');
  });

  it('a tool whose inputSchema is not an object is dropped; the server connects and its other tools serve', async () => {
    const server = await oxpServerOn('non-object-schema');
    await assertHealthy(server.health, 'oxp-server');
    assert.deepEqual(await ids(server.url), ['Hostile.echo@1.0.0']);
    const reply = await post(server.url, 'Hostile.echo', { text: 'hi' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.ok(await logged(server.logs, (l) => /"broken"/.test(l) && /inputSchema/.test(l)), `no log line names the dropped tool:\n${server.logs.join('\n')}`);
  });

  it('a 5,000-deep inputSchema drops that tool only', async () => {
    const server = await oxpServerOn('deep-schema');
    assert.deepEqual(await ids(server.url), ['Hostile.echo@1.0.0']);
    assert.ok(
      await logged(server.logs, (l) => /"deep"/.test(l) && /nests deeper than 64/.test(l)),
      `no log line names the dropped tool:\n${server.logs.join('\n')}`,
    );
    await assertHealthy(server.health, 'oxp-server');
  });

  it('a 5,000-deep MCP result is a clear tool error, not "The request body is not valid JSON"', async () => {
    const server = await oxpServerOn('deep-result');
    const reply = await healthyDuring(server.health, post(server.url, 'Hostile.echo', { text: 'hi' }));
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const result = reply.body.result as Json;
    assert.equal(result.success, false);
    assert.match(String((result.error as Json).message), /nested more than 100 levels deep/);
    await assertHealthy(server.health, 'oxp-server');
  });
});
