/**
 * The command line as a person meets it, through the real CLI for all three commands (the bridge, `oxp-server`,
 * `doctor`): a mistyped flag gets one line naming the closest known one (exit 2), `--help` and `--version` answer on
 * stdout (exit 0), and a reader that closes stdout early (`doctor … | head -1`) ends the command without a stack trace.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { cliArgs } from '../helpers/ts-entry.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion (60 s at most: a hang fails, it never blocks the runner). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, cliArgs(args), { cwd: REPO_ROOT, env: { ...cleanChildEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr }))));
}

const VERSION = /^\d+\.\d+\.\d+\S*\n$/;

describe('a mistyped command line', () => {
  it('one line with the closest known flag and where the options are, exit 2, for each command', async () => {
    // Started together: independent processes, one start-up's wait instead of five.
    const [bridge, transposed, oxpServer, doctorOwn, doctorBridge] = await Promise.all([
      cli(['--oxp-ur', 'http://127.0.0.1:9']),
      cli(['--prot', '8081']),
      cli(['oxp-server', '--mcp-ulr', 'http://127.0.0.1:9/mcp']),
      cli(['doctor', '--tokn', 'x']),
      cli(['doctor', '--oxp-ur', 'http://127.0.0.1:9']),
    ]);
    const expect = (run: Run, line: string) => {
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr, `${line}\n`, 'one line, no usage dump');
      assert.equal(run.stdout, '');
    };
    expect(bridge, 'mcp-oxp-bridge: unknown option --oxp-ur (did you mean --oxp-url?); run mcp-oxp-bridge --help for the options');
    expect(transposed, 'mcp-oxp-bridge: unknown option --prot (did you mean --port?); run mcp-oxp-bridge --help for the options');
    expect(oxpServer, 'mcp-oxp-bridge: unknown option --mcp-ulr (did you mean --mcp-url?); run mcp-oxp-bridge oxp-server --help for the options');
    expect(doctorOwn, 'mcp-oxp-bridge doctor: unknown option --tokn (did you mean --token?); run mcp-oxp-bridge doctor --help for the options');
    expect(doctorBridge, 'mcp-oxp-bridge doctor: unknown option --oxp-ur (did you mean --oxp-url?); run mcp-oxp-bridge doctor --help for the options');
  });

  it('a mistyped subcommand, a flag without its value, a flag like no other: still one line each', async () => {
    const [subcommand, missing, unknown] = await Promise.all([cli(['docter']), cli(['--port']), cli(['--zzzz'])]);
    for (const run of [subcommand, missing, unknown]) {
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.split('\n').length, 2, run.stderr);
    }
    assert.match(subcommand.stderr, /unexpected argument "docter" \(did you mean mcp-oxp-bridge doctor\?\)/);
    assert.match(missing.stderr, /--port needs a value/);
    assert.match(unknown.stderr, /^mcp-oxp-bridge: unknown option --zzzz; run mcp-oxp-bridge --help for the options\n$/, 'no guess when nothing is close');
  });
});

describe('--help and --version', () => {
  it('answer on stdout with exit 0, nothing on stderr, for the bridge, oxp-server and doctor', async () => {
    const commands = [[], ['oxp-server'], ['doctor']];
    const runs = await Promise.all(commands.flatMap((c) => [cli([...c, '--help']), cli([...c, '--version']), cli([...c, '-h'])]));
    const usages = [/^Usage: mcp-oxp-bridge \[options\]\n/, /^Usage: mcp-oxp-bridge oxp-server \[options\]\n/, /^Usage: mcp-oxp-bridge doctor /];
    commands.forEach((command, i) => {
      const [help, version, short] = runs.slice(i * 3, i * 3 + 3) as [Run, Run, Run];
      const what = ['mcp-oxp-bridge', ...command].join(' ');
      for (const run of [help, version, short]) {
        assert.equal(run.code, 0, `${what}: ${run.stderr}`);
        assert.equal(run.stderr, '', `${what}: nothing on stderr`);
      }
      assert.match(help.stdout, usages[i]!, what);
      assert.equal(short.stdout, help.stdout, `${what} -h`);
      assert.match(version.stdout, VERSION, `${what} --version`);
    });
  });
});

describe('messages that stop the start, one line each that says what to do', () => {
  it('a short token, a bad URL, a config file not there, an exposed endpoint without auth (all four OAuth variables named)', async () => {
    const [token, url, file, exposed] = await Promise.all([
      cli(['--port', '0'], { MCP_AUTH_TOKENS: 'abc' }),
      cli(['--oxp-url', 'localhost:8000', '--port', '0']),
      cli(['--config', 'no-such-bridge.yaml']),
      cli(['--host', '0.0.0.0', '--port', '0']),
    ]);
    for (const run of [token, url, file, exposed]) {
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.split('\n').length, 2, `one line: ${run.stderr}`);
    }
    // Before: three lines, two of them about forms a token from MCP_AUTH_TOKENS cannot take.
    assert.match(
      token.stderr,
      /^mcp-oxp-bridge: invalid configuration: auth\.tokens\.0 \(from environment variable MCP_AUTH_TOKENS\): is too short for a secret: at least 16 characters/,
    );
    assert.doesNotMatch(token.stderr, /abc/, 'the value is not repeated');
    // Before: "must match ^https?://[^\s]+$".
    assert.match(url.stderr, /upstream\.url \(from flag --oxp-url\): must be an http:\/\/ or https:\/\/ URL, e\.g\. http:\/\/127\.0\.0\.1:8000\n$/);
    // Before: "cannot read config file no-such-bridge.yaml: ENOENT".
    assert.match(
      file.stderr,
      /cannot read the config file no-such-bridge\.yaml \(\/.*\/no-such-bridge\.yaml\): no such file; check the path given by --config/,
    );
    // Before: MCP_OAUTH_RESOURCE_URL was missing, and OAuth mode refuses to start without it.
    for (const name of [
      'MCP_AUTH_TOKENS',
      'MCP_OAUTH_ISSUER',
      'MCP_OAUTH_AUDIENCE',
      'MCP_OAUTH_JWKS_URL',
      'MCP_OAUTH_RESOURCE_URL',
      'MCP_ALLOW_UNAUTHENTICATED',
    ])
      assert.ok(exposed.stderr.includes(name), `${name} named: ${exposed.stderr}`);
  });
});

describe('a reader that closes stdout early', () => {
  it('doctor … | head -1: the command ends at once, quietly, with the status of a process stopped by SIGPIPE', async () => {
    // A "bridge" whose /healthz answers after a second: the doctor writes its first line, then its next after the reader left.
    const slow: Server = createServer((req, res) => void setTimeout(() => res.writeHead(req.url === '/healthz' ? 200 : 404).end(), 1_000));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/mcp`;
    try {
      const child = spawn(process.execPath, cliArgs(['doctor', '--url', url]), { cwd: REPO_ROOT, env: cleanChildEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      // `head -1`: read the first line, then close the pipe.
      const first = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
      });
      child.stdout.destroy();
      const code = await exited;
      clearTimeout(timer);
      assert.match(first, /^mcp-oxp-bridge doctor .*: checking the running bridge/);
      assert.equal(stderr, '', 'no EPIPE stack trace');
      assert.equal(code, 141);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
