/**
 * The real CLI (`src/cli.ts --transport stdio`) as a child process, driven by
 * real MCP clients over stdio at every revision (v2 legacy at each 2025-era
 * revision, v2 modern at 2026-07-28, v1 at each 2025-era revision): the core
 * subset (list + one call of each output kind), every received message
 * validated against the revision's schema. Plus a raw exchange at debug log
 * level proving stdout carries nothing but JSON-RPC.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { generatedTools, integrationTools, stdioCommand } from '../helpers/it-bridge.js';
import { defineClientCases } from '../helpers/it-cases.js';
import { ALL_CLIENT_SPECS, connectStdio, spec, type StdioSession } from '../helpers/it-clients.js';
import { expectDoorbellError, expectSuccess, expectToolsList, OUTPUT_CASES } from '../helpers/it-expect.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

describe('MCP clients over stdio (the CLI as a child process), every revision', () => {
  let fixture: OxpFixtureServer;
  const sessions = new Map<string, StdioSession>();
  const failures = new Map<string, unknown>();

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    // Process start-up dominates: start every client's server at once.
    const settled = await Promise.allSettled(ALL_CLIENT_SPECS.map((s) => connectStdio(s, stdioCommand(fixture.url))));
    settled.forEach((outcome, i) => {
      const label = ALL_CLIENT_SPECS[i]!.label;
      if (outcome.status === 'fulfilled') sessions.set(label, outcome.value);
      else failures.set(label, outcome.reason);
    });
  });
  after(async () => {
    await Promise.allSettled([...sessions.values()].map((s) => s.close()));
    await fixture?.close();
  });

  for (const s of ALL_CLIENT_SPECS) {
    describe(s.label, () => {
      const session = (): StdioSession => {
        const found = sessions.get(s.label);
        if (!found) throw new Error(`${s.label} could not connect over stdio: ${String(failures.get(s.label))}`);
        return found;
      };
      defineClientCases(s, session, integrationTools, { subset: true });

      it('stderr carries no warnings or errors from the bridge', () => {
        const lines = session()
          .stderr()
          .split('\n')
          .filter((l) => l.trim() !== '');
        for (const line of lines) {
          const entry = JSON.parse(line) as { level?: number; msg?: string };
          assert.ok((entry.level ?? 0) < 40, `stderr: ${line}`);
        }
      });
    });
  }
});

describe('stdio: stdout carries only the protocol (debug logging on)', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
  });
  after(async () => {
    await fixture?.close();
  });

  it('a raw 2024-11-05 exchange: every stdout line is one JSON-RPC message; logs go to stderr; stdin EOF ends the process', async () => {
    const cmd = stdioCommand(fixture.url, 'debug');
    const child = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const rawLines: string[] = [];
    const next = async (): Promise<Record<string, unknown>> => {
      const { value, done } = await lines.next();
      assert.ok(!done, `stdout ended early; stderr:\n${stderr}`);
      rawLines.push(value);
      const message = JSON.parse(value) as Record<string, unknown>;
      assert.equal(message.jsonrpc, '2.0', `not JSON-RPC: ${String(value)}`);
      return message;
    };
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      const v = '2024-11-05';
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const init = await next();
      assertValidServerMessage(v, init, 'initialize');
      assert.equal((init.result as { protocolVersion: string }).protocolVersion, v);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });

      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const list = await next();
      assert.equal(list.id, 2);
      assertValidServerMessage(v, list, 'tools/list');
      expectToolsList(v, list.result as Record<string, unknown>, integrationTools());

      let id = 3;
      for (const c of OUTPUT_CASES) {
        send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: c.tool, arguments: c.args } });
        const reply = await next();
        assert.equal(reply.id, id++);
        assertValidServerMessage(v, reply, 'tools/call');
        expectSuccess(v, reply.result as Record<string, unknown>, c, integrationTools());
      }
      send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Doorbell_Ring', arguments: { doorbell_id: 'doorbell1' } } });
      const failed = await next();
      assertValidServerMessage(v, failed, 'tools/call');
      expectDoorbellError(v, failed.result as Record<string, unknown>, failed);

      child.stdin.end();
      const [code] = await exited;
      assert.equal(code, 0, `exit code; stderr:\n${stderr}`);
      const { done } = await lines.next();
      assert.ok(done, 'nothing more on stdout');
      assert.equal(rawLines.length, 3 + OUTPUT_CASES.length);

      const logLines = stderr.split('\n').filter((l) => l.trim() !== '');
      assert.ok(logLines.length > 0, 'debug logs were written (to stderr)');
      for (const line of logLines) assert.doesNotThrow(() => JSON.parse(line), `stderr line is a log record: ${line}`);
      assert.ok(!stderr.includes("doorbell1' does not exist"), 'developer_message is redacted in logs');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill();
        await exited;
      }
    }
  });
});

describe('stdio: upstream catalog changes (--catalog-refresh-seconds 1)', () => {
  let fixture: OxpFixtureServer;
  let session: StdioSession;
  const v = '2025-06-18';
  const added = {
    id: 'Late.Arrival',
    name: 'Late_Arrival',
    description: 'A tool the upstream adds after start-up.',
    version: '1.0.0',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'string' },
    handler: () => ({ value: 'here' }),
  };
  let notified: Promise<unknown>;

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    session = await connectStdio(spec('v2-legacy', v), stdioCommand(fixture.url, 'warn', ['--catalog-refresh-seconds', '1']));
    await session.listTools();
    // Armed before the change; awaited by the list_changed case.
    notified = session.log.next('notifications/tools/list_changed', 4_000);
    notified.catch(() => undefined);
    fixture.setTools([...integrationTools(), added]);
  });
  after(async () => {
    await session?.close();
    await fixture?.close();
  });

  it('a tool the upstream adds shows up in tools/list after the refresh period', async () => {
    // Nothing observable announces the refresh to the client (see the next case), so poll with a deadline.
    const deadline = Date.now() + 5_000;
    let names: string[] = [];
    while (Date.now() < deadline) {
      names = (await session.listTools()).tools.map((t) => t.name);
      if (names.includes('Late_Arrival')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(names.includes('Late_Arrival'), `listed: ${names.join(', ')}`);
    expectToolsList(v, session.log.lastResponse('tools/list').result as Record<string, unknown>, [...integrationTools(), added]);
    const result = await session.callTool('Late_Arrival', {});
    assert.deepEqual(result.structuredContent, { result: 'here' });
    session.log.assertValid(v);
  });

  it('the server, which advertises tools.listChanged, sends notifications/tools/list_changed when the catalog changes', async () => {
    const init = session.log.lastResponse('initialize').result as { capabilities: { tools?: { listChanged?: boolean } } };
    assert.equal(init.capabilities.tools?.listChanged, true, 'the capability is advertised');
    const message = await notified;
    assertValidServerMessage(v, message);
    session.log.assertValid(v);
  });
});

describe('stdio: a line that is not a JSON-RPC message', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
  });
  after(async () => {
    await fixture?.close();
  });

  it('gets -32700 (not JSON) or -32600 (not JSON-RPC) with id null, a warn line without its content, and the bridge serves on', async () => {
    const cmd = stdioCommand(fixture.url, 'info');
    const child = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    // Bounded: a line left unanswered fails the test instead of hanging it.
    const next = async (): Promise<Record<string, unknown>> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer on stdout; stderr:\n${stderr}`)), 10_000)));
      const { value, done } = await Promise.race([lines.next(), timeout]).finally(() => clearTimeout(timer));
      assert.ok(!done, `stdout ended early; stderr:\n${stderr}`);
      return JSON.parse(value) as Record<string, unknown>;
    };
    const CANARY = 'CANARY-LINE-5d1e';
    try {
      const v = '2025-06-18';
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
      );
      assert.equal(((await next()).result as { protocolVersion: string }).protocolVersion, v);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const cases: [string, number, unknown][] = [
        [`this is not json ${CANARY}`, -32700, null],
        // Split across writes: a line is a line, whatever the chunks.
        [`{"half": "a line`, -32700, null],
        [`{"jsonrpc":"2.0","secret":"${CANARY}"}`, -32600, null],
        [`{"id":7,"method":"tools/list"}`, -32600, 7],
        ['[1,2]', -32600, null],
      ];
      for (const [line, code, id] of cases) {
        if (line.startsWith('{"half"')) {
          child.stdin.write(line.slice(0, 5));
          await new Promise((r) => setTimeout(r, 50));
          child.stdin.write(`${line.slice(5)}\n`);
        } else child.stdin.write(`${line}\n`);
        const reply = await next();
        assert.deepEqual({ id: reply.id, code: (reply.error as { code: number }).code }, { id, code }, `reply to ${line}`);
        assert.equal(reply.jsonrpc, '2.0');
      }
      // An empty line is skipped, as the transport skips it; the next request is answered.
      child.stdin.write(`\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      const list = await next();
      assert.equal(list.id, 2);
      assertValidServerMessage(v, list, 'tools/list');
      child.stdin.end();
      const [code] = await exited;
      assert.equal(code, 0, `exit code; stderr:\n${stderr}`);
      const warned = stderr
        .split('\n')
        .filter((l) => l.includes('not a JSON-RPC message'))
        .map((l) => JSON.parse(l) as { level: number; reason: string; bytes: number });
      assert.deepEqual(
        warned.map((w) => [w.level, w.reason]),
        cases.map(([, c]) => [40, c === -32700 ? 'parse_error' : 'invalid_request']),
      );
      assert.ok(!stderr.includes(CANARY), 'the line itself is never logged');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill();
        await exited;
      }
    }
  });
});

describe('stdio: a host that reads its output late', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    // About 30 KB per tools/list answer: 250 of them are several times the output bound (1 MiB).
    fixture = await startOxpFixture({ tools: generatedTools(200) });
  });
  after(async () => {
    await fixture?.close();
  });

  it('250 requests written, the output read once the bridge has stopped reading: each answered once, no listener warning, the output waiting bounded', async () => {
    // Before: MaxListenersExceededWarning on stderr (the SDK's send added an error and a drain listener per message
    // while stdout was backed up), and every answer waited in the process, whatever the host read.
    const cmd = stdioCommand(fixture.url, 'debug');
    const child = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const logged = (msg: string) =>
      stderr
        .split('\n')
        .filter((l) => l.includes(msg))
        .map((l) => JSON.parse(l) as Record<string, number>);
    const N = 250;
    try {
      child.stdout.pause();
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (let id = 1; id <= N; id++) send({ jsonrpc: '2.0', id, method: 'tools/list' });
      // Not reading stdout, until the bridge says it has stopped reading stdin (then a second more).
      const deadline = Date.now() + 60_000;
      while (logged('the host is not reading its output').length === 0) {
        assert.ok(Date.now() < deadline, `the bridge never stopped reading; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1000));

      const ids: unknown[] = [];
      let longest = 0;
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        longest = Math.max(longest, Buffer.byteLength(line) + 1);
        ids.push((JSON.parse(line) as { id?: unknown }).id);
      });
      child.stdout.resume();
      while (ids.length < N + 1) {
        assert.ok(Date.now() < deadline, `${ids.length} answers of ${N + 1}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.stdin.end();
      const [code] = await exited;
      assert.equal(code, 0, `exit code; stderr:\n${stderr}`);
      assert.deepEqual(
        [...ids].sort((a, b) => Number(a) - Number(b)),
        Array.from({ length: N + 1 }, (_, i) => i),
        'every request answered exactly once',
      );
      assert.doesNotMatch(stderr, /MaxListenersExceededWarning/);
      // What waited for the host: the bound (1 MiB), passed by one answer at most (docs/security.md).
      const most = Math.max(...logged('the host has read its output').map((l) => l.most_waiting_bytes!));
      assert.ok(most <= 1024 * 1024 + longest, `at most 1 MiB and one answer (${longest} bytes) waited; ${most} did`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill();
        await exited;
      }
    }
  });
});
