/**
 * A private redis-server for a test file: Debian's package (installed by
 * `.ci/run`, never by a test), on a free loopback port, without persistence,
 * in its own folder under the OS temporary directory. Tests stop and start
 * it again on the same port (Redis gone mid-run), or freeze it with SIGSTOP
 * (a Redis that accepts connections and never answers). With `persist`, it
 * writes every command to its append-only file before answering, so a kill
 * and a restart lose nothing it acknowledged (the fault test's tasks).
 *
 * Every server started is killed when the test process exits, whatever
 * happened before.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const REDIS_SERVER = '/usr/bin/redis-server';
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Under CI a missing redis-server fails the suite; elsewhere it is skipped, saying why. */
export function requireRedisServer(): { why?: string } {
  if (spawnSync(REDIS_SERVER, ['--version']).status === 0) return {};
  const why = 'redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)';
  if (process.env.CI === 'true') throw new Error(`${why}: under CI=true the Redis tests may not be skipped`);
  return { why };
}

export interface TestRedis {
  readonly port: number;
  /** redis://127.0.0.1:PORT, without credentials. */
  readonly url: string;
  /** Kills the server (as a crash would) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** Kills it and removes its folder. */
  close(): Promise<void>;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
}

export async function startRedis(options: { password?: string; persist?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bridge-redis-'));
  const aof = options.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...aof, '--dir', dir, '--loglevel', 'warning'];
  if (options.password) args.push('--requirepass', options.password);
  let child: ChildProcess | undefined;

  const start = async () => {
    const output: Buffer[] = [];
    child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
    child.once('exit', () => running.delete(child!));
    if (!(await answersPing(port, child))) {
      await stop();
      throw new Error(`redis-server did not answer on port ${port}:\n${Buffer.concat(output).toString()}`);
    }
  };
  const stop = async () => {
    const gone = child;
    if (!gone || gone.exitCode !== null || gone.signalCode !== null) return;
    const exited = new Promise((resolve) => gone.once('exit', resolve));
    gone.kill('SIGKILL');
    await exited;
  };
  const signal = (name: NodeJS.Signals) => () => void child?.kill(name);

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    freeze: signal('SIGSTOP'),
    thaw: signal('SIGCONT'),
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** True once the server answers PING (+PONG, or -NOAUTH when it has a password), within 10 s. */
async function answersPing(port: number, child: ChildProcess): Promise<boolean> {
  for (const until = Date.now() + 10_000; Date.now() < until; await sleep(50)) {
    if (child.exitCode !== null) return false;
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setTimeout(1_000, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n')) socket.end();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(''));
    });
    if (answer.startsWith('+PONG') || answer.startsWith('-NOAUTH')) return true;
  }
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
