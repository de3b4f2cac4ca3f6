/**
 * A hostile OXP tool server: one HTTP server, one scenario per path prefix.
 * The bridge under test is pointed at `server.url('<scenario>')`, i.e.
 * `http://127.0.0.1:<port>/<scenario>`, and the scenario answers its
 * `GET /tools` and `POST /tools/call` (and anything else it likes, such as a
 * decoy admin endpoint for SSRF checks).
 *
 * Scenarios are plain functions grouped by theme in `oxp-scenarios/*.ts`;
 * every hit is recorded so tests can assert what the bridge did (and did
 * not) fetch. Runnable as a script for manual poking:
 *   node --import tsx test/hostile/hostile-oxp-server.ts [--port N]
 */
import { createServer } from 'node:http';
import { sendJson, type HostileOxpScenario, type OxpHit } from './oxp-kit.js';
import type { AddressInfo } from 'node:net';
import { SCHEMA_SCENARIOS } from './oxp-scenarios/schemas.js';
import { FACE_SCENARIOS } from './oxp-scenarios/face.js';
import { SECRET_URL_SCENARIOS } from './oxp-scenarios/secrets-urls.js';
import { isEntryPoint } from '../helpers/ts-entry.js';

export const OXP_SCENARIOS: Record<string, HostileOxpScenario> = { ...SCHEMA_SCENARIOS, ...FACE_SCENARIOS, ...SECRET_URL_SCENARIOS };

export interface HostileOxpServer {
  origin: string;
  /** The upstream URL that serves `scenario`. */
  url(scenario: string): string;
  /** Requests the scenario received. */
  hits(scenario: string): OxpHit[];
  close(): Promise<void>;
}

export async function startHostileOxp(options: { port?: number; scenarios?: Record<string, HostileOxpScenario> } = {}): Promise<HostileOxpServer> {
  const scenarios = { ...OXP_SCENARIOS, ...options.scenarios };
  const hits = new Map<string, OxpHit[]>();
  let origin = '';
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const slash = url.indexOf('/', 1);
    const name = decodeURIComponent(slash === -1 ? url.slice(1).split('?')[0]! : url.slice(1, slash));
    const path = slash === -1 ? '/' : url.slice(slash);
    const scenario = scenarios[name];
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 16 * 1024 * 1024) chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const list = hits.get(name) ?? [];
      hits.set(name, list);
      list.push({ method: req.method ?? 'GET', path, headers: req.headers, body, at: Date.now() });
      if (!scenario) return sendJson(res, 404, { error: `no scenario ${name}` });
      Promise.resolve(scenario(req, res, { path, body, base: `${origin}/${name}`, origin, hits: list })).catch(() => res.destroy());
    });
  });
  // A hostile server holds sockets open: never let that hold the test process.
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (scenario) => `${origin}/${encodeURIComponent(scenario)}`,
    hits: (scenario) => hits.get(scenario) ?? [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (isEntryPoint(import.meta.url)) {
  const portFlag = process.argv.indexOf('--port');
  const server = await startHostileOxp({ port: portFlag > 0 ? Number(process.argv[portFlag + 1]) : 0 });
  process.stdout.write(
    `${server.origin}\n${Object.keys(OXP_SCENARIOS)
      .map((s) => `  ${server.url(s)}`)
      .join('\n')}\n`,
  );
}
