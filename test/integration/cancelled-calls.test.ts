/**
 * A tools/call the client cancels is still a call: the real CLI, an OXP upstream whose tool never answers, and a
 * client that gives up — over HTTP by closing the request (a 2025-era and a 2026-07-28 client), over stdio with
 * `notifications/cancelled` (the SDK client). Each leaves exactly one `tool call` log line (outcome `cancelled`, the
 * tool and its upstream), a request counter labelled with the real tool, a console record naming its upstream, and
 * an audit record of a cancelled call.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MCP_HEADERS, MODERN_META, modernHeaders, testConfig, until } from '../helpers/bridge-harness.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { cliArgs } from '../helpers/ts-entry.js';

const TOOL = 'Hang_Forever';

/** An OXP upstream whose one tool never answers; counts the calls it received and the ones the bridge gave up. */
async function hangingUpstream() {
  const started: string[] = [];
  const aborted: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/tools') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ items: [{ id: 'Hang.Forever@1.0.0', name: TOOL, description: 'Never answers', version: '1.0.0', input_schema: { type: 'object' } }] }),
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    started,
    aborted,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

type LogLine = { msg?: string; outcome?: string; tool?: string; upstream?: string; oxp_tool?: string; call_id?: string; protocol_version?: string };
type AuditLine = {
  type: string;
  decision: string;
  outcome: string;
  protocol: string;
  tool: { name?: string; oxpId?: string; upstream?: string };
  callId?: string;
};

const parseLines = <T>(lines: string[]): T[] => lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as T);
const callLines = (lines: string[]) => parseLines<LogLine>(lines).filter((l) => l.msg === 'tool call');
const audits = (file: string) => (existsSync(file) ? parseLines<AuditLine>(readFileSync(file, 'utf8').split('\n')).filter((r) => r.type === 'call') : []);

function assertCancelledLine(line: LogLine | undefined, version: string, callId: string | undefined): void {
  assert.ok(line, 'a tool call line');
  assert.equal(line.outcome, 'cancelled');
  assert.equal(line.tool, TOOL);
  assert.equal(line.upstream, 'default');
  assert.equal(line.oxp_tool, 'Hang.Forever@1.0.0');
  assert.equal(line.protocol_version, version);
  assert.equal(line.call_id, callId);
}

function assertCancelledRecord(record: AuditLine | undefined, version: string, callId: string | undefined): void {
  assert.ok(record, 'an audit record');
  assert.equal(record.decision, 'allowed');
  assert.equal(record.outcome, 'cancelled');
  assert.equal(record.protocol, `mcp/${version}`);
  assert.deepEqual(record.tool, { name: TOOL, oxpId: 'Hang.Forever@1.0.0', upstream: 'default' });
  assert.equal(record.callId, callId);
}

describe('a cancelled tools/call over HTTP: the client closes the request', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cancelled-http-'));
  const auditFile = join(dir, 'audit.jsonl');
  let upstream: Awaited<ReturnType<typeof hangingUpstream>>;
  let cli: CliProcess;
  before(async () => {
    upstream = await hangingUpstream();
    cli = await startCli(['--oxp-url', upstream.url, '--port', '0', '--log-level', 'info', '--audit-file', auditFile], {});
  });
  after(async () => {
    cli?.child.kill('SIGKILL');
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const eras = [
    { version: '2025-06-18', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' }, meta: undefined },
    { version: '2026-07-28', headers: modernHeaders('tools/call', TOOL), meta: MODERN_META },
  ];

  it('one log line, the real tool in the metrics, the upstream in the console, a cancelled audit record (each era)', async () => {
    for (const [i, era] of eras.entries()) {
      const controller = new AbortController();
      const pending = fetch(cli.url, {
        method: 'POST',
        headers: era.headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: TOOL, arguments: {}, ...(era.meta ? { _meta: era.meta } : {}) },
        }),
        signal: controller.signal,
      }).then(
        (r) => r.text(),
        () => 'aborted',
      );
      await until(() => upstream.started.length === i + 1, 15_000);
      controller.abort();
      await pending;
      await until(() => upstream.aborted.length === i + 1, 15_000);
    }
    // The console: both calls, each with its upstream and call_id.
    await until(async () => {
      const { recent } = (await (await fetch(new URL('/console/api/calls', cli.url))).json()) as { recent: unknown[] };
      return recent.length === 2;
    }, 15_000);
    const { recent } = (await (await fetch(new URL('/console/api/calls', cli.url))).json()) as {
      recent: { tool: string; upstream: string | null; outcome: string; revision: string; callId: string | null }[];
    };
    assert.deepEqual(
      recent.map((c) => [c.tool, c.upstream, c.outcome, c.revision]),
      [
        [TOOL, 'default', 'cancelled', '2026-07-28'],
        [TOOL, 'default', 'cancelled', '2025-06-18'],
      ],
    );
    assert.deepEqual(recent.map((c) => c.callId).reverse(), upstream.started);
    // Metrics: labelled with the tool and its upstream, not "(unknown)".
    const metrics = await (await fetch(new URL('/metrics', cli.url))).text();
    for (const era of eras) {
      const series = new RegExp(`^mcp_oxp_bridge_requests_total\\{[^}]*protocol_version="${era.version}"[^}]*\\} 1$`, 'm');
      const line = metrics.split('\n').find((l) => series.test(l) && l.includes('method="tools/call"'));
      assert.ok(line, `a tools/call series for ${era.version} in\n${metrics}`);
      assert.match(line, /tool="Hang_Forever"/);
      assert.match(line, /upstream="default"/);
      assert.match(line, /outcome="cancelled"/);
    }
    assert.doesNotMatch(metrics, /tool="\(unknown\)"/);
    assert.equal(await cli.stop(), 0);
    // The log and the audit trail, written out at the exit: exactly one line and one record per call.
    const lines = callLines(cli.logs);
    assert.equal(lines.length, 2, cli.logs.join('\n'));
    const records = audits(auditFile);
    assert.equal(records.length, 2);
    for (const [i, era] of eras.entries()) {
      assertCancelledLine(lines[i], era.version, upstream.started[i]);
      assertCancelledRecord(records[i], era.version, upstream.started[i]);
    }
  });
});

describe('a cancelled tools/call over stdio: notifications/cancelled', () => {
  it('one log line and a cancelled audit record; the bridge serves on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cancelled-stdio-'));
    const auditFile = join(dir, 'audit.jsonl');
    const upstream = await hangingUpstream();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(['--transport', 'stdio', '--oxp-url', upstream.url, '--log-level', 'info', '--audit-file', auditFile]),
      cwd: REPO_ROOT,
      env: cleanChildEnv(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += String(c)));
    const client = new Client({ name: 'cancel-test', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    try {
      await client.connect(transport);
      const controller = new AbortController();
      const pending = client.callTool({ name: TOOL, arguments: {} }, { signal: controller.signal }).then(
        () => 'answered',
        () => 'cancelled',
      );
      await until(() => upstream.started.length === 1, 15_000);
      controller.abort();
      assert.equal(await pending, 'cancelled');
      await until(() => upstream.aborted.length === 1, 15_000);
      // Still serving: the tool is listed after the cancellation.
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        [TOOL],
      );
      // stdin's end: the bridge exits, writing out its log and audit trail.
      await client.close();
      await until(() => audits(auditFile).length === 1 && callLines(stderr.split('\n')).length >= 1, 15_000);
      const lines = callLines(stderr.split('\n'));
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0]!.protocol_version ?? '', /^2025-/);
      assertCancelledLine(lines[0], lines[0]!.protocol_version!, upstream.started[0]);
      assertCancelledRecord(audits(auditFile)[0], lines[0]!.protocol_version!, upstream.started[0]);
    } finally {
      await client.close().catch(() => undefined);
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Bridge.abandonCalls: calls a process gives up on its way out (a second SIGINT)', () => {
  it('records each running call as cancelled at once, and never again when it ends', async () => {
    const upstream = await hangingUpstream();
    const running = await startBridge(testConfig(['--oxp-url', upstream.url]), createLogger('silent'));
    try {
      const controller = new AbortController();
      const pending = fetch(running.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: {} } }),
        signal: controller.signal,
      }).catch(() => 'aborted');
      await until(() => upstream.started.length === 1, 15_000);
      assert.equal(running.bridge.abandonCalls(), 1);
      assert.equal(running.bridge.abandonCalls(), 0);
      const recent = async () =>
        ((await (await fetch(new URL('/console/api/calls', running.mcpUrl))).json()) as { recent: { upstream: string; outcome: string }[] }).recent;
      assert.deepEqual(await recent(), [{ ...(await recent())[0], upstream: 'default', outcome: 'cancelled' }]);
      // The client goes away later: the call ends, and is not recorded a second time.
      controller.abort();
      await pending;
      await until(() => upstream.aborted.length === 1, 15_000);
      assert.equal((await recent()).length, 1);
    } finally {
      await running.close();
      await upstream.close();
    }
  });
});
