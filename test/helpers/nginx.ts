/**
 * A real round-robin nginx on loopback in front of bridge replicas (the
 * scale-out tests). nginx comes from Debian's packages, installed by
 * `.ci/run` before the test command (never by a test: importing a test file
 * must not change the machine); under CI a missing nginx fails the suite,
 * elsewhere it is skipped, saying why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findNginx(): string | undefined {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx']) {
    if (spawnSync(candidate, ['-v']).status === 0) return candidate;
  }
  return undefined;
}

export function requireNginx(): { path?: string; why?: string } {
  const path = findNginx();
  if (path) return { path };
  const why = 'nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)';
  if (process.env.CI === 'true') throw new Error(`${why}: under CI=true the scale-out test may not be skipped`);
  return { why };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface Nginx {
  /** The balanced MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** nginx's error log (level warn): among others, each failed connect to a replica, naming it. */
  errorLog: string;
  close(): void;
}

/** nginx balancing round-robin over `replicaUrls` (their MCP URLs), answering once its /healthz does. */
export async function startNginx(nginxPath: string, replicaUrls: readonly string[]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-nginx-'));
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  chmodSync(dir, 0o777);
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConf(dir, port, replicaUrls));
  const proxy: ChildProcess = spawn(nginxPath, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(new URL('/healthz', url)).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, errorLog: join(dir, 'error.log'), close: () => void proxy.kill('SIGTERM') };
}

function nginxConf(dir: string, port: number, replicaUrls: readonly string[]): string {
  const upstreams = replicaUrls.map((u) => `    server ${new URL(u).host};`).join('\n');
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream bridges {
${upstreams}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bridges;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1;
      proxy_buffering off;
      proxy_read_timeout 300s;
      # Which replica answered (or each one tried, comma-separated): the fault test tells a refusal by nginx from one by a replica.
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}
