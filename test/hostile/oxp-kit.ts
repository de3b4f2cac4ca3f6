/**
 * The parts hostile OXP scenarios are written with: the scenario type, the
 * context each request gets, and small answer helpers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface OxpHit {
  method: string;
  /** The path below the scenario prefix, with its query (e.g. `/tools/call`). */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface ScenarioContext {
  /** The path below the scenario prefix, with its query. */
  path: string;
  /** The request body (read whole, up to 16 MiB). */
  body: string;
  /** This scenario's base URL (what the bridge was given as its upstream). */
  base: string;
  /** The server's origin (`http://127.0.0.1:<port>`), to point at other scenarios. */
  origin: string;
  /** Hits recorded so far for this scenario. */
  hits: OxpHit[];
}

/** Answers one request of a scenario. It may also hold the response open, trickle or destroy the socket. */
export type HostileOxpScenario = (req: IncomingMessage, res: ServerResponse, ctx: ScenarioContext) => void | Promise<void>;

/** Writes a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A well-formed OXP tool definition with the given overrides (id `Hostile.<name>`). */
export function toolDefinition(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `Hostile.${name}@1.0.0`,
    name,
    description: `Hostile tool ${name}.`,
    version: '1.0.0',
    input_schema: { type: 'object', properties: {} },
    output_schema: null,
    ...overrides,
  };
}

/** `GET /tools` with these definitions; `POST /tools/call` answered by `call` (default: success `{value: "ok"}`). */
export function catalogScenario(definitions: () => unknown[], call?: HostileOxpScenario): HostileOxpScenario {
  return async (req, res, ctx) => {
    if (req.method === 'GET' && ctx.path.startsWith('/tools')) return sendJson(res, 200, { $schema: 'urn:oxp:1.0', items: definitions() });
    if (req.method === 'POST' && ctx.path.startsWith('/tools/call')) {
      if (call) return call(req, res, ctx);
      const body = JSON.parse(ctx.body || '{}') as { call_id?: string };
      return sendJson(res, 200, { $schema: 'urn:oxp:1.0', success: true, call_id: body.call_id ?? 'c1', result: { value: 'ok' } });
    }
    sendJson(res, 404, { error: 'not found' });
  };
}
