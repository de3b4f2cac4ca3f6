/**
 * The published package as a user gets it: `npm pack` (whose `prepack`
 * builds dist/), the tarball installed into an empty directory with
 * `npm install <tarball>` (dependencies from the registry), and the installed
 * bin run: --help, the bridge on its demo toolkit answering one MCP
 * tools/list over HTTP, and `oxp-server --help`. Catches a `files` list that
 * misses something the bin needs at run time, a dependency declared as a
 * devDependency, and an install-time script npm would refuse or warn about.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let dir: string;
let bin: string;
let installLog: string;
// npm must not see the runner's test context or a project .npmrc's odd settings as its own.
const { NODE_TEST_CONTEXT: _ctx, ...ENV } = process.env;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-oxp-bridge-pack-'));
  const packed = await run(NPM, ['pack', '--pack-destination', dir, '--loglevel=error'], { cwd: REPO_ROOT, env: ENV, timeout: 180_000 });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, `npm pack made no tarball: ${packed.stdout}${packed.stderr}`);
  const app = join(dir, 'app');
  rmSync(app, { recursive: true, force: true });
  await run('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-test', private: true }));
  const installed = await run(NPM, ['install', join(dir, tarball), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, env: ENV, timeout: 180_000 });
  installLog = installed.stdout + installed.stderr;
  bin = join(app, 'node_modules', '.bin', 'mcp-oxp-bridge');
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * One dependency's script is known and allowed: protobufjs's `postinstall`, which comes with @grpc/grpc-js (through
 * @grpc/proto-loader) for the OTLP gRPC trace exporter. It only prints a hint when a package depends on protobufjs
 * with another version scheme, and protobufjs works the same when npm does not run it.
 */
const ALLOWED_SCRIPTS = new Set(['protobufjs']);

it("installs without warnings about install scripts (but protobufjs's, known and harmless)", () => {
  const listed = [...installLog.matchAll(/^npm warn install-scripts\s+(@?[^@\s]+)@\S+ \(/gm)].map((m) => m[1]!);
  assert.deepEqual(
    listed.filter((name) => !ALLOWED_SCRIPTS.has(name)),
    [],
    installLog,
  );
  const rest = installLog.replace(/^npm warn install-scripts.*$/gm, '');
  assert.doesNotMatch(rest, /prepare|install script|unapproved/i, installLog);
});

it('the installed bin prints its usage, for the bridge and for oxp-server', async () => {
  const bridge = await run(bin, ['--help'], { env: ENV, timeout: 30_000 });
  assert.match(bridge.stdout, /^Usage: mcp-oxp-bridge \[options\]/);
  const oxp = await run(bin, ['oxp-server', '--help'], { env: ENV, timeout: 30_000 });
  assert.match(oxp.stdout, /^Usage: mcp-oxp-bridge oxp-server \[options\]/);
  const doctor = await run(bin, ['doctor', '--help'], { env: ENV, timeout: 30_000 });
  assert.match(doctor.stdout, /^Usage: mcp-oxp-bridge doctor/);
});

it('the installed bin serves the demo toolkit over MCP HTTP', async () => {
  const child: ChildProcess = spawn(bin, ['--port', '0'], { env: { ...ENV, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => reject(new Error(`no listening line within 30 s:\n${log}`)), 30_000);
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        log += d;
        const m = /"url":"(http:\/\/[^"]+)".*endpoint listening/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`the bridge exited (${code}) before listening:\n${log}`)));
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'pack-test', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const body = JSON.parse(res.headers.get('content-type')?.includes('event-stream') ? /^data: (.*)$/m.exec(text)![1]! : text) as {
      result?: { tools?: { name: string }[] };
    };
    assert.ok(
      body.result?.tools?.some((t) => t.name === 'Calculator_Add'),
      text,
    );
    // A call reaches the upstream, and the console finds its assets from its own chunk of the bundle: both resolve from
    // where the package is installed, not from the sources.
    const call = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 40, b: 2 } } }),
    });
    assert.match(await call.text(), /"text":"42"/);
    const page = await fetch(new URL('/console/', url));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
});
