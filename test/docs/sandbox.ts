/**
 * Where the documentation's examples run: a copy of the repository (its
 * tracked and untracked-but-not-ignored files; node_modules linked, as
 * `npm ci` would have installed it from the same lockfile) with dist/ built
 * by `scripts/build.mjs`, and the shell a reader types into.
 *
 * An example runs as written but for a few documented substitutions, each
 * reported with the step that made it:
 * - the documented ports (8080, 8090, 9000, 3001, 4318) become free ports, in the
 *   text and, for commands that listen on a default port, through
 *   MCP_PORT/OXP_SERVER_PORT/PORT: other work on a shared machine may hold them;
 * No path is redirected: a file an example reads is one its page makes first, or one the repository has.
 * - `/path/to/mcp-oxp-bridge` becomes the sandbox;
 * - `npm ci && ` is dropped: node_modules is the tree's own, and reinstalling
 *   it would pull the packages from under the running suite.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The ports the documentation names, each standing for a free one here. */
export const DOCUMENTED_PORTS = [8080, 8090, 9000, 3001, 4318] as const;

export interface Sandbox {
  dir: string;
  /** Documented port → the free port that stands for it. */
  port(documented: number): number;
  /** The text with the substitutions made, and which were made. */
  localize(text: string): { text: string; changes: string[] };
  /** The environment an example's shell gets: the machine's, minus anything that configures the bridge, plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Removes the sandbox (`rm -rf`: its hard-linked node_modules is ~17,000 entries, seconds for rmSync). */
  remove(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-oxp-bridge-docs-'));
  try {
    copyRepository(dir);
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    if (built.status !== 0) throw new Error(`scripts/build.mjs failed in the sandbox: ${built.stderr}${built.stdout}`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return sandboxAt(dir);
}

/**
 * Another sandbox like `from` (its files copied with their modification times, so its dist/ is as fresh as the one
 * it was copied from and `npm start` builds nothing again; node_modules hard-linked from the repository), with free
 * ports of its own: scenarios in different sandboxes run at once without sharing a port or a file.
 */
export async function cloneSandbox(from: Sandbox): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-oxp-bridge-docs-'));
  try {
    const entries = readdirSync(from.dir).filter((name) => name !== 'node_modules');
    const copied = spawnSync('cp', ['-a', ...entries.map((name) => join(from.dir, name)), dir], { encoding: 'utf8' });
    if (copied.status !== 0) throw new Error(`copying the sandbox failed: ${copied.stderr}`);
    linkNodeModules(dir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return sandboxAt(dir);
}

async function sandboxAt(dir: string): Promise<Sandbox> {
  const ports = new Map<number, number>();
  for (const documented of DOCUMENTED_PORTS) ports.set(documented, await freePort());
  const port = (documented: number) => ports.get(documented) ?? documented;
  const substitutions: [RegExp, (m: string, ...groups: string[]) => string][] = [
    [/\b((?:127\.0\.0\.1|localhost|0\.0\.0\.0):)(\d{4})\b/g, (_m, host, p) => `${host}${port(Number(p))}`],
    [/(--port[ =]|\bport: |\bPORT=)(\d{4})\b/g, (_m, key, p) => `${key}${port(Number(p))}`],
    [/\/path\/to\/mcp-oxp-bridge/g, () => dir],
    [/\bnpm ci && /g, () => ''],
  ];
  return {
    dir,
    port,
    localize(text) {
      const changes: string[] = [];
      let out = text;
      for (const [pattern, replace] of substitutions) {
        out = out.replace(pattern, (...args: string[]) => {
          const replaced = replace(...(args as [string, ...string[]]));
          if (replaced !== args[0]) changes.push(`${args[0]} → ${replaced || '(nothing)'}`);
          return replaced;
        });
      }
      return { text: out, changes: [...new Set(changes)] };
    },
    env(extra = {}) {
      const inherited = Object.entries(process.env).filter(
        (e): e is [string, string] =>
          typeof e[1] === 'string' && !/^(OXP_|MCP_|BRIDGE_|OTEL_|LOG_LEVEL$|NODE_OPTIONS$|NODE_TEST|TEST_JS_TREE$|PORT$|npm_)/.test(e[0]),
      );
      return {
        ...Object.fromEntries(inherited),
        // This test's node (and its npm, npx) first: the Node release the suite runs on.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        MCP_PORT: String(port(8080)),
        OXP_SERVER_PORT: String(port(8090)),
        ...extra,
      };
    },
    remove() {
      return new Promise((resolve) => {
        const rm = spawn('rm', ['-rf', dir], { stdio: 'ignore' });
        rm.once('error', () => resolve(rmSync(dir, { recursive: true, force: true })));
        rm.once('close', () => resolve(rmSync(dir, { recursive: true, force: true })));
      });
    },
  };
}

/**
 * The repository's own files (git's view: tracked and new, not ignored) copied, node_modules hard-linked (a real
 * directory, as a reader's clone has: with a symlinked node_modules, Node 20 loaded the MCP client's stdio module
 * under the link's path and, when stderr was a pipe, its `cross-spawn` default import was not yet a function —
 * "spawn is not a function" for every stdio upstream); a symlink only where hard links cannot be made.
 */
function copyRepository(dir: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of new Set(listed.stdout.split('\0').filter(Boolean))) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    try {
      copyFileSync(join(REPO_ROOT, file), join(dir, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // deleted in the work tree, not yet in git
    }
  }
  linkNodeModules(dir);
}

function linkNodeModules(dir: string): void {
  const linked = spawnSync('cp', ['-al', join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules')], { encoding: 'utf8' });
  if (linked.status !== 0) symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ShellResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash (`-e`: a failing line fails the example) in `cwd`, to its end or `timeoutMs`. */
export function runShell(script: string, cwd: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? 'unknown', stdout, stderr: signal === 'SIGKILL' ? `${stderr}\n(killed after ${timeoutMs} ms)` : stderr });
    });
  });
}

export interface Background {
  output(): string;
  /** SIGTERM to the whole process group (npm, its shell, node), SIGKILL after 15 s; resolves with the exit. */
  stop(): Promise<void>;
  exited: Promise<number | string>;
}

/** Starts `script` in the background (a terminal left running), its stdout and stderr collected. */
export function startShell(script: string, cwd: string, env: Record<string, string>): Background {
  const child = spawn('bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    output: () => output,
    exited,
    async stop() {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL'); // anything the group left behind
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone
  }
}
