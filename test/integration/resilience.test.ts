/**
 * Resilience against a fault-injecting upstream: retries (same call_id, the
 * tool never runs twice when the server honours call_id), what is never
 * retried, the circuit breaker, progress while waiting, cancellation
 * reaching the upstream, and exactly one response per request under load.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import type { BridgeConfig } from '../../src/config/load.js';
import { startOxpFixture, type FixtureReply, type FixtureTool, type OxpCallRequest, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig, until } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { cliArgs } from '../helpers/ts-entry.js';

const VERSION = '2025-11-25';

function tool(
  id: string,
  handler: (req: OxpCallRequest) => FixtureReply | Promise<FixtureReply>,
  output: Record<string, unknown> | null = { type: 'string' },
): FixtureTool {
  return { id, name: id.replace('.', '_'), version: '1.0.0', description: id, input_schema: { type: 'object' }, output_schema: output, handler };
}

async function call(url: string, name: string, args: Record<string, unknown> = {}, id = 1) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const messages = await readMessages(res);
  for (const m of messages) assertValidServerMessage(VERSION, m, 'tools/call');
  return messages;
}

type Result = { isError?: boolean; content: { text: string }[]; _meta?: Record<string, { kind: string }> };
const resultOf = (messages: Record<string, unknown>[]) => messages.find((m) => 'result' in m)?.result as Result;

async function bridgeFor(fixture: OxpFixtureServer, tune: (c: BridgeConfig) => void = () => undefined): Promise<RunningBridge> {
  const config = testConfig(['--oxp-url', fixture.url]);
  config.upstream.retry = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1000, retryToolErrors: false };
  tune(config);
  return startBridge(config, createLogger('silent'));
}

describe('retries', () => {
  const executions = new Map<string, number>();
  const stored = new Map<string, FixtureReply>();
  let attemptsSeen: string[] = [];
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;

  before(async () => {
    let flaky = 0;
    fixture = await startOxpFixture({
      tools: [
        tool('Flaky.Once', (req) => {
          attemptsSeen.push(req.call_id!);
          return ++flaky % 2 === 1 ? { http: { status: 503, body: 'busy', headers: { 'retry-after': '0' } } } : { value: 'ok' };
        }),
        // A server that honours call_id, behind a proxy that loses the first answer.
        tool('Idempotent.Charge', (req) => {
          const id = req.call_id!;
          const previous = stored.get(id);
          if (previous) return previous;
          executions.set(id, (executions.get(id) ?? 0) + 1);
          stored.set(id, { value: 'charged' });
          return { http: { status: 502, contentType: 'text/html', body: '<html><title>502 Bad Gateway</title></html>' } };
        }),
        tool('Broken.Always500', () => ({ http: { status: 500, body: 'Internal Server Error', contentType: 'text/plain' } })),
        tool('Slow.Later', () => ({ http: { status: 429, body: '{"message":"slow down"}', headers: { 'retry-after': '30' } } })),
        tool('Busy.CanRetry', () => ({ error: { message: 'Busy', can_retry: true, retry_after_ms: 1 } })),
      ],
    });
    bridge = await bridgeFor(fixture);
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
  });

  it('a 503 is retried with the same call_id and the client sees only the success', async () => {
    attemptsSeen = [];
    const result = resultOf(await call(bridge.mcpUrl!, 'Flaky_Once'));
    assert.equal(result.isError, undefined);
    assert.equal(result.content[0]!.text, 'ok');
    assert.equal(attemptsSeen.length, 2);
    assert.equal(attemptsSeen[0], attemptsSeen[1], 'same call_id on the retry');
  });

  it('a retried call never runs the tool twice when the server honours call_id', async () => {
    const result = resultOf(await call(bridge.mcpUrl!, 'Idempotent_Charge'));
    assert.equal(result.content[0]!.text, 'charged');
    assert.equal(executions.size, 1);
    assert.deepEqual([...executions.values()], [1]);
    assert.equal(fixture.callCount('Idempotent.Charge'), 2, 'two attempts, one execution');
  });

  it('never retries a 500, nor a Retry-After beyond the cap, nor tool errors by default', async () => {
    for (const [name, id] of [
      ['Broken_Always500', 'Broken.Always500'],
      ['Slow_Later', 'Slow.Later'],
      ['Busy_CanRetry', 'Busy.CanRetry'],
    ] as const) {
      const result = resultOf(await call(bridge.mcpUrl!, name));
      assert.equal(result.isError, true, name);
      assert.equal(fixture.callCount(id), 1, `${name} attempted once`);
    }
    const slow = resultOf(await call(bridge.mcpUrl!, 'Slow_Later'));
    assert.match(slow.content[0]!.text, /after 30000 ms/, 'the server hint still reaches the model');
  });

  it('retries can_retry tool errors when enabled', async () => {
    const b = await bridgeFor(fixture, (c) => (c.upstream.retry.retryToolErrors = true));
    try {
      const before = fixture.callCount('Busy.CanRetry');
      const result = resultOf(await call(b.mcpUrl!, 'Busy_CanRetry'));
      assert.equal(result.isError, true);
      assert.equal(fixture.callCount('Busy.CanRetry') - before, 3);
    } finally {
      await b.close();
    }
  });
});

describe('circuit breaker', () => {
  it('opens on transport failures, answers fast while open, and /readyz reports it', async () => {
    const fixture = await startOxpFixture({
      tools: [tool('Down.Always', () => ({ http: { status: 503, body: 'down' } })), tool('Tool.Error', () => ({ error: { message: 'no' } }))],
    });
    const bridge = await bridgeFor(fixture, (c) => {
      c.upstream.retry.maxAttempts = 1;
      c.upstream.circuit = { failureThreshold: 3, openSeconds: 60 };
    });
    try {
      for (let i = 0; i < 5; i++) assert.equal(resultOf(await call(bridge.mcpUrl!, 'Tool_Error')).isError, true);
      type Ready = { upstreams: Record<string, { circuit: string }> };
      assert.equal(((await (await fetch(new URL('/readyz', bridge.mcpUrl))).json()) as Ready).upstreams.default!.circuit, 'closed', 'tool errors do not count');
      for (let i = 0; i < 3; i++) await call(bridge.mcpUrl!, 'Down_Always');
      const before = fixture.callCount();
      const fast = resultOf(await call(bridge.mcpUrl!, 'Tool_Error'));
      assert.equal(fast._meta?.['mcp-oxp-bridge/error']?.kind, 'circuit_open');
      assert.equal(fixture.callCount(), before, 'no upstream call while open');
      const ready = await fetch(new URL('/readyz', bridge.mcpUrl));
      assert.equal(ready.status, 503);
      assert.equal(((await ready.json()) as Ready).upstreams.default!.circuit, 'open');
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('load with injected faults', () => {
  it('200 concurrent calls each get exactly one response', async () => {
    const faults: FixtureReply[] = [
      { value: 'ok' },
      { http: { status: 503, body: 'busy' } },
      { http: { status: 502, contentType: 'text/html', body: '<html>bad gateway</html>' } },
      { http: { status: 200, body: '{"result":{"success":tr' } },
      { http: { status: 200, body: '' } },
      { error: { message: 'tool failed', developer_message: 'secret-ish detail' } },
      { http: { status: 422, body: { message: 'bad', parameter_errors: { x: ['a', 'b'] } } } },
      { delayMs: 50, then: { value: 'late' } },
      { http: { status: 404, body: { detail: 'Tool x not found' } } },
    ];
    const fixture = await startOxpFixture({ tools: [tool('Chaos.Monkey', (req) => faults[Number(req.input?.['n']) % faults.length]!)] });
    const bridge = await bridgeFor(fixture, (c) => (c.upstream.circuit = { failureThreshold: 1000, openSeconds: 1 }));
    try {
      const replies = await Promise.all(Array.from({ length: 200 }, (_, n) => call(bridge.mcpUrl!, 'Chaos_Monkey', { n }, n + 1)));
      replies.forEach((messages, n) => {
        assert.equal(messages.length, 1, `request ${n} got ${messages.length} messages`);
        assert.equal(messages[0]!.id, n + 1);
        assert.ok(!JSON.stringify(messages[0]).includes('secret-ish detail'));
      });
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('progress while waiting', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  before(async () => {
    fixture = await startOxpFixture({ tools: [tool('Slow.Job', () => ({ delayMs: 1200, then: { value: 'finished' } }))] });
    bridge = await bridgeFor(fixture, (c) => (c.upstream.progressIntervalMs = 250));
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
  });

  const modes = [
    { label: 'legacy 2025-06-18', options: { versionNegotiation: { mode: 'legacy' as const }, supportedProtocolVersions: ['2025-06-18'] } },
    { label: 'modern 2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  ];
  for (const mode of modes) {
    it(`sends progress notifications to a client that asked (${mode.label})`, async () => {
      const client = new Client({ name: 'progress-test', version: '1' }, mode.options);
      await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
      try {
        const progress: { progress: number; message?: string }[] = [];
        const result = await client.callTool(
          { name: 'Slow_Job', arguments: {} }, // A generous timeout: the test is about the notifications, and a loaded 2-core machine can delay one past a tight bound.
          { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 15_000 },
        );
        assert.equal((result.content as { text: string }[])[0]!.text, 'finished');
        assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
        assert.deepEqual(
          progress.map((p) => p.progress),
          progress.map((_, i) => i + 1),
        );
        assert.match(progress[0]!.message ?? '', /Waiting for Slow_Job/);
      } finally {
        await client.close();
      }
    });
  }
});

/** An OXP upstream whose one tool never answers; it records when the bridge gives up on a call. */
async function hangingUpstream() {
  const aborted: string[] = [];
  const started: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/tools') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          items: [{ id: 'Hang.Forever@1.0.0', name: 'Hang_Forever', description: 'Never answers', version: '1.0.0', input_schema: { type: 'object' } }],
        }),
      );
      return;
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => started.push((JSON.parse(body) as { request: { call_id: string } }).request.call_id));
    res.on('close', () => {
      if (!res.writableEnded) aborted.push('aborted');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    aborted,
    started,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('cancellation reaches the upstream', () => {
  it('HTTP: closing the request stream aborts the upstream call', async () => {
    const upstream = await hangingUpstream();
    const bridge = await startBridge(testConfig(['--oxp-url', upstream.url]), createLogger('silent'));
    try {
      const controller = new AbortController();
      const pending = fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Hang_Forever', arguments: {} } }),
        signal: controller.signal,
      }).then(
        (r) => r.text(),
        () => 'aborted',
      );
      await until(() => upstream.started.length === 1);
      controller.abort();
      await pending;
      await until(() => upstream.aborted.length === 1);
    } finally {
      await bridge.close();
      await upstream.close();
    }
  });

  it('stdio: notifications/cancelled aborts the upstream call', async () => {
    const upstream = await hangingUpstream();
    const client = new Client({ name: 'cancel-test', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: cliArgs(['--transport', 'stdio', '--oxp-url', upstream.url, '--log-level', 'silent']),
        cwd: process.cwd(),
      }),
    );
    try {
      const controller = new AbortController();
      const pending = client.callTool({ name: 'Hang_Forever', arguments: {} }, { signal: controller.signal }).then(
        () => 'answered',
        () => 'cancelled',
      );
      await until(() => upstream.started.length === 1, 10_000);
      controller.abort();
      assert.equal(await pending, 'cancelled');
      await until(() => upstream.aborted.length === 1);
    } finally {
      await client.close();
      await upstream.close();
    }
  });
});

/** A raw TCP upstream that lists one tool and then misbehaves on every call in a scripted way. */
async function rawUpstream(onCall: (socket: import('node:net').Socket) => void) {
  const { createServer: createTcpServer } = await import('node:net');
  let calls = 0;
  const server = createTcpServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += String(chunk);
      const head = buffered.split('\r\n\r\n')[0] ?? '';
      if (!buffered.includes('\r\n\r\n')) return;
      if (head.startsWith('GET /tools')) {
        const body = JSON.stringify({
          items: [{ id: 'Raw.Tool@1.0.0', name: 'Raw_Tool', description: 'raw', version: '1.0.0', input_schema: { type: 'object' } }],
        });
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      } else if (head.startsWith('POST')) {
        calls += 1;
        buffered = '';
        onCall(socket);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('transport faults', () => {
  it('a reset mid-body is a clean error and is not retried (the tool may have run)', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"result":{"succ');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const bridge = await startBridge(testConfig(['--oxp-url', upstream.url]), createLogger('silent'));
    try {
      const result = resultOf(await call(bridge.mcpUrl!, 'Raw_Tool'));
      assert.equal(result.isError, true);
      assert.equal(result._meta?.['mcp-oxp-bridge/error']?.kind, 'upstream_unreachable');
      assert.equal(upstream.calls(), 1);
    } finally {
      await bridge.close();
      await upstream.close();
    }
  });

  it('a body trickled past the call deadline ends in a timeout error', async () => {
    const upstream = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n');
      const timer = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(timer)), 50);
      socket.on('close', () => clearInterval(timer));
    });
    const bridge = await startBridge(testConfig(['--oxp-url', upstream.url, '--call-timeout-ms', '500']), createLogger('silent'));
    try {
      const started = Date.now();
      const result = resultOf(await call(bridge.mcpUrl!, 'Raw_Tool'));
      assert.equal(result._meta?.['mcp-oxp-bridge/error']?.kind, 'upstream_timeout');
      assert.ok(Date.now() - started < 3000);
    } finally {
      await bridge.close();
      await upstream.close();
    }
  });

  it('headers that never come end in a timeout error', async () => {
    const upstream = await rawUpstream(() => undefined);
    const bridge = await startBridge(testConfig(['--oxp-url', upstream.url, '--call-timeout-ms', '300']), createLogger('silent'));
    try {
      assert.equal(resultOf(await call(bridge.mcpUrl!, 'Raw_Tool'))._meta?.['mcp-oxp-bridge/error']?.kind, 'upstream_timeout');
    } finally {
      await bridge.close();
      await upstream.close();
    }
  });
});

describe('a tool that disappears upstream', () => {
  it('answers -32602 and refreshes the catalog', async () => {
    const gone = tool('Gone.Soon', () => ({ value: 'here' }));
    const fixture = await startOxpFixture({ tools: [gone, tool('Stays.Here', () => ({ value: 'ok' }))] });
    const bridge = await bridgeFor(fixture);
    try {
      fixture.setTools([tool('Stays.Here', () => ({ value: 'ok' }))]);
      const [msg] = await call(bridge.mcpUrl!, 'Gone_Soon');
      assert.equal((msg!.error as { code: number }).code, -32602);
      await until(async () => {
        const res = await fetch(bridge.mcpUrl!, {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        const [list] = await readMessages(res);
        return !(list!.result as { tools: { name: string }[] }).tools.some((t) => t.name === 'Gone_Soon');
      });
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('an upstream whose catalog cannot be loaded', () => {
  it('logs one error line while it stays down, the retries at debug, and the recovery with the attempts it took', async () => {
    const fixture = await startOxpFixture({ tools: [tool('Comes.Back', () => ({ value: 'ok' }))] });
    let down = true;
    let listings = 0;
    // The tool server's GET /tools answers 503 while `down`, then the fixture's own catalog.
    const upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
      listings++;
      if (down) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"UNAVAILABLE","message":"maintenance"}}');
      void fetch(`${fixture.url}${req.url ?? '/'}`).then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const lines: Record<string, unknown>[] = [];
    const config = testConfig(['--oxp-url', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`]);
    config.catalog.refreshSeconds = 1; // retried every second while down
    const bridge = await startBridge(config, createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }));
    try {
      await until(() => listings >= 4);
      const failures = lines.filter((l) => String(l.msg).startsWith('catalog refresh failed'));
      assert.deepEqual(
        failures.map((l) => [l.level, l.msg]),
        failures.map((_, i) => (i === 0 ? [50, 'catalog refresh failed'] : [20, 'catalog refresh failed again'])),
      );
      assert.ok(failures.length >= 3, `${failures.length} failed attempts logged`);
      down = false;
      await until(() => lines.some((l) => l.msg === 'catalog loaded'));
      const loaded = lines.find((l) => l.msg === 'catalog loaded')!;
      assert.equal(loaded.level, 30);
      assert.ok(Number(loaded.failed_attempts) >= failures.length, `failed_attempts ${String(loaded.failed_attempts)}`);
    } finally {
      await bridge.close();
      await new Promise((resolve) => upstream.close(resolve));
      await fixture.close();
    }
  });
});

describe('the merged catalog without a promise (UpstreamSet.snapshotNow, the call path)', () => {
  it('is what snapshot() resolves to while the catalogs are fresh, and gives way to it when one is refreshed', async () => {
    const fixture = await startOxpFixture({ tools: [tool('First.Tool', () => ({ value: 'one' }))] });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.catalog.refreshSeconds = 1;
    const bridge = await startBridge(config, createLogger('silent'));
    const set = bridge.bridge.upstreams;
    try {
      const merged = await set.snapshot();
      assert.equal(set.snapshotNow(), merged);
      fixture.setTools([tool('Second.Tool', () => ({ value: 'two' }))]);
      // The next refresh (within a second) makes a new snapshot: the merge of the old one is no answer any more.
      await until(() => set.snapshotNow() !== merged, 4000);
      await until(async () => (await set.snapshot()).entry('Second_Tool') !== undefined, 4000);
      const next = await set.snapshot();
      assert.notEqual(next, merged);
      assert.equal(set.snapshotNow() ?? next, next);
      const [msg] = await call(bridge.mcpUrl!, 'Second_Tool');
      assert.equal(resultOf([msg!]).content[0]!.text, 'two');
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});
