/**
 * The OXP client against a real fixture server: the three upstream auth
 * modes (with canary secrets that must never reach logs or MCP output),
 * deadlines, and the response size cap.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

function logSink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

async function call(mcpUrl: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const [msg] = await readMessages(res);
  assertValidServerMessage('2025-11-25', msg, 'tools/call');
  return msg as {
    result?: { isError?: boolean; content: { text: string }[]; structuredContent?: unknown; _meta?: Record<string, { kind: string }> };
    error?: unknown;
  };
}

const API_KEY = 'canary-api-key-7f3a9c';
const BEARER = 'canary-bearer-token-51be02';
const JWT_SECRET = 'canary-jwt-secret-0c4d8e2a9b';

describe('upstream authentication', () => {
  const modes: { name: string; auth: Record<string, string>; env: Record<string, string>; args?: string[]; canary: string }[] = [
    { name: 'OXP-API-Key header', auth: { apiKey: API_KEY }, env: { OXP_API_KEY: API_KEY }, canary: API_KEY },
    { name: 'static bearer', auth: { bearer: BEARER }, env: { OXP_BEARER_TOKEN: BEARER }, canary: BEARER },
    {
      name: 'minted HS256 JWT with aud',
      auth: { jwtSecret: JWT_SECRET, jwtAudience: 'otcserver' },
      env: { OXP_JWT_SECRET: JWT_SECRET },
      args: ['--oxp-jwt-audience', 'otcserver'],
      canary: JWT_SECRET,
    },
  ];
  for (const mode of modes) {
    it(`${mode.name}: lists and calls; the secret reaches no log line and no MCP message`, async () => {
      const fixture = await startOxpFixture({ tools: demoFixtureTools(), auth: mode.auth });
      const sink = logSink();
      const bridge = await startBridge(
        testConfig(['--oxp-url', fixture.url, '--log-level', 'info', ...(mode.args ?? [])], mode.env),
        createLogger('info', sink.stream),
      );
      try {
        const msg = await call(bridge.mcpUrl!, 'Calculator_Add', { a: 1, b: 2 });
        assert.deepEqual(msg.result?.structuredContent, { sum: 3 });
        assert.ok(
          fixture.requests.every((r) => r.path === '/health' || r.headers['authorization'] || r.headers['oxp-api-key']),
          'every request authenticated',
        );
        assert.ok(!JSON.stringify(msg).includes(mode.canary));
        assert.ok(!sink.text().includes(mode.canary), 'secret in logs');
      } finally {
        await bridge.close();
        await fixture.close();
      }
    });
  }

  it('wrong credentials: the catalog does not load and /readyz says why, without the secret', async () => {
    const fixture = await startOxpFixture({ tools: demoFixtureTools(), auth: { apiKey: 'right' } });
    const sink = logSink();
    const bridge = await startBridge(
      testConfig(['--oxp-url', fixture.url, '--log-level', 'info'], { OXP_API_KEY: API_KEY }),
      createLogger('info', sink.stream),
    );
    try {
      const ready = await fetch(new URL('/readyz', bridge.mcpUrl));
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { upstreams: { default: { lastError: string } } };
      assert.match(body.upstreams.default.lastError, /HTTP 401/);
      assert.ok(!JSON.stringify(body).includes(API_KEY) && !sink.text().includes(API_KEY));
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('deadlines and limits', () => {
  const slow: FixtureTool = {
    id: 'Slow.Sleep',
    name: 'Slow_Sleep',
    version: '1.0.0',
    description: 'Sleeps',
    input_schema: { type: 'object', properties: { ms: { type: 'number' } } },
    output_schema: { type: 'string' },
    handler: (req) => ({ delayMs: Number(req.input?.ms ?? 0), then: { value: 'done' } }),
  };
  const huge: FixtureTool = {
    id: 'Big.Blob',
    name: 'Big_Blob',
    version: '1.0.0',
    description: 'Returns a large value',
    input_schema: { type: 'object' },
    output_schema: { type: 'string' },
    handler: () => ({ value: 'x'.repeat(64 * 1024) }),
  };

  it('a call past its deadline is a clean isError; a call within it succeeds', async () => {
    const fixture = await startOxpFixture({ tools: [slow] });
    const bridge = await startBridge(testConfig(['--oxp-url', fixture.url, '--call-timeout-ms', '400']), createLogger('silent'));
    try {
      const late = await call(bridge.mcpUrl!, 'Slow_Sleep', { ms: 2000 });
      assert.equal(late.result?.isError, true);
      assert.equal(late.result?._meta?.['mcp-oxp-bridge/error']?.kind, 'upstream_timeout');
      const quick = await call(bridge.mcpUrl!, 'Slow_Sleep', { ms: 10 });
      assert.equal(quick.result?.content[0]?.text, 'done');
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });

  it('a response over upstream.maxResponseBytes is refused cleanly', async () => {
    const fixture = await startOxpFixture({ tools: [huge, slow] });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.upstream.maxResponseBytes = 16 * 1024;
    const bridge = await startBridge(config, createLogger('silent'));
    try {
      const msg = await call(bridge.mcpUrl!, 'Big_Blob', {});
      assert.equal(msg.result?.isError, true);
      assert.equal(msg.result?._meta?.['mcp-oxp-bridge/error']?.kind, 'upstream_protocol_error');
      assert.equal((await call(bridge.mcpUrl!, 'Slow_Sleep', { ms: 0 })).result?.content[0]?.text, 'done');
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });

  it('the connect timeout bounds an upstream that never accepts', async () => {
    // A port whose TCP handshake never completes: a listener with a one-slot backlog in a stopped
    // process, the backlog filled first, so the kernel drops further SYNs and connect() hangs.
    // Only the connect timeout (300 ms) can end the bridge's first catalog load early; the list
    // timeout (30 s) and the call timeout are far longer, so start-up time tells them apart.
    const { spawn } = await import('node:child_process');
    const { connect } = await import('node:net');
    const listener = spawn(
      process.execPath,
      ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{process.stdout.write(String(s.address().port)+'\\n')})"],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const fillers: import('node:net').Socket[] = [];
    try {
      const port = Number(await new Promise<string>((resolve) => listener.stdout.once('data', (d: Buffer) => resolve(String(d).trim()))));
      listener.kill('SIGSTOP');
      // Fill the accept queue (Linux admits backlog + 1); later handshakes go unanswered.
      for (let i = 0; i < 4; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        fillers.push(socket);
      }
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      const bridge = await startBridge(testConfig(['--oxp-url', `http://127.0.0.1:${port}`, '--connect-timeout-ms', '300']), createLogger('silent'));
      const startup = Date.now() - started;
      try {
        assert.ok(startup < 10_000, `start-up took ${startup} ms: the connect timeout did not end the first catalog load`);
        const res = await fetch(new URL('/readyz', bridge.mcpUrl));
        assert.equal(res.status, 503);
        const body = (await res.json()) as { upstreams: Record<string, { lastError?: string }> };
        assert.match(String(body.upstreams.default?.lastError), /time|connect/i);
      } finally {
        await bridge.close();
      }
    } finally {
      for (const socket of fillers) socket.destroy();
      listener.kill('SIGKILL');
    }
  });
});
