/**
 * A hostile MCP server: raw JSON-RPC over stdio (default) or plain
 * Streamable HTTP JSON answers (`--http`, 2025-era, no sessions), one
 * scenario per `--scenario NAME`. Scenarios are grouped by theme in
 * `mcp-scenarios/*.ts` and written with `mcp-kit.ts`.
 *
 *   node --import tsx test/hostile/hostile-mcp-server.ts --scenario NAME [--http] [--port N]
 *
 * With `--http` it prints its URL (`http://127.0.0.1:<port>/mcp`) on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { answer, type HostileMcpScenario, type JsonRpcMessage, type McpOut } from './mcp-kit.js';
import { SCHEMA_SCENARIOS } from './mcp-scenarios/schemas.js';
import { FACE_SCENARIOS } from './mcp-scenarios/face.js';
import { SECRET_URL_SCENARIOS } from './mcp-scenarios/secrets-urls.js';
import { TASK_SCENARIOS } from './mcp-scenarios/tasks.js';
import { tsEntryArgs, isEntryPoint } from '../helpers/ts-entry.js';

export const MCP_SCENARIOS: Record<string, HostileMcpScenario> = {
  plain: {},
  ...SCHEMA_SCENARIOS,
  ...FACE_SCENARIOS,
  ...SECRET_URL_SCENARIOS,
  ...TASK_SCENARIOS,
};

/** The command line that runs this server with `scenario` over stdio (for `--mcp-command` or an SDK stdio transport). */
export function hostileMcpCommand(scenario: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [...tsEntryArgs(fileURLToPath(import.meta.url)), '--scenario', scenario] };
}

function parse(line: string): JsonRpcMessage | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

function serveStdio(scenario: HostileMcpScenario): void {
  const out: McpOut = { send: (m) => void process.stdout.write(`${JSON.stringify(m)}\n`), raw: (t) => void process.stdout.write(t) };
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const message = parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (message) answer(scenario, message, out);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

async function serveHttp(scenario: HostileMcpScenario, port: number): Promise<void> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const message = parse(body);
      let answered = false;
      const out: McpOut = {
        send: (m) => {
          if (answered) return;
          answered = true;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(m));
        },
        raw: (t) => {
          if (!answered) res.writeHead(200, { 'content-type': 'application/json' });
          answered = true;
          res.write(t);
        },
      };
      if (message) answer(scenario, message, out);
      // Notifications get 202; a request the scenario left unanswered stays open (silence).
      if (!answered && (!message || message.id === undefined)) res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
}

if (isEntryPoint(import.meta.url)) {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const name = flag('--scenario') ?? 'plain';
  const scenario = MCP_SCENARIOS[name];
  if (!scenario) {
    process.stderr.write(`unknown scenario ${name}; known: ${Object.keys(MCP_SCENARIOS).join(', ')}\n`);
    process.exit(2);
  }
  if (process.argv.includes('--http')) await serveHttp(scenario, Number(flag('--port') ?? 0));
  else serveStdio(scenario);
}
