/**
 * V8's compile cache for this process's modules, where Node has one
 * (`module.enableCompileCache`, Node 22.1 and later; a no-op on Node 20):
 * most of the start-up is compiling JavaScript (express, undici, pino and
 * the bridge's own modules), which a cache of the compiled code skips from
 * the second start on.
 *
 * The cache holds code the process will run, so its directory must be
 * writable by this user only: `$XDG_CACHE_HOME/mcp-oxp-bridge` (else
 * `~/.cache/mcp-oxp-bridge`), created 0700 and used only when owned by this
 * user and not writable by group or others — never a shared temporary
 * directory. `NODE_COMPILE_CACHE=<dir>` (Node enables the cache itself) and
 * `NODE_DISABLE_COMPILE_CACHE=1` override this. Failing to set it up
 * (read-only file system, no home directory) is silent: the process just
 * compiles, as on Node 20.
 */
import * as nodeModule from 'node:module';
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

type EnableCompileCache = (directory: string) => { status: number; directory?: string };

/** The directory chosen for `env`, or undefined when none is safe. Exported for its test. */
export function safeCompileCacheDir(env: NodeJS.ProcessEnv, uid = process.getuid?.()): string | undefined {
  if (uid === undefined) return undefined; // no POSIX ownership to check (Windows)
  try {
    const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
    const dir = join(base, 'mcp-oxp-bridge');
    // One level at a time, never `recursive: true`: Node 20's recursive mkdir can spin forever on some paths
    // (e.g. under /proc), and the home (or XDG_CACHE_HOME's parent) must exist already.
    for (const level of [base, dir]) makeDir(level);
    const stat = statSync(dir);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

function makeDir(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function' || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = safeCompileCacheDir(env);
  if (dir) enable(dir);
}

enableCompileCache();
