/**
 * Raw Streamable HTTP exchanges, for behaviour below the SDK clients
 * (headers, status codes, session ids).
 */
import { request as httpRequest, type Agent } from 'node:http';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface RawExchange {
  status: number;
  headers: Headers;
  /** The JSON-RPC messages of the body: a JSON object/batch, or the SSE `data:` events. */
  messages: Record<string, unknown>[];
  text: string;
}

export function parseBody(text: string, contentType: string | null): Record<string, unknown>[] {
  if (text.trim() === '') return [];
  if ((contentType ?? '').includes('text/event-stream')) {
    const out: Record<string, unknown>[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim() !== '') out.push(JSON.parse(data) as Record<string, unknown>);
    }
    return out;
  }
  const parsed = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

export async function exchange(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<RawExchange> {
  const method = init.method ?? 'POST';
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers };
  const res = await fetch(url, { method, headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  const text = await res.text();
  let messages: Record<string, unknown>[];
  try {
    messages = parseBody(text, res.headers.get('content-type'));
  } catch {
    messages = [];
  }
  return { status: res.status, headers: res.headers, messages, text };
}

/**
 * A JSON-RPC POST as `exchange` sends it (the same default headers, the body read the same way), over `agent`'s
 * kept-alive connections (node:http): for the floods of thousands of requests, where fetch's streams and abort
 * signals per request cost the test process about a millisecond of CPU each (a fifth of
 * hostile/forward-tasks.test.ts's CPU).
 */
export function postOver(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; contentType: string | null; messages: Record<string, unknown>[]; text: string }> {
  const json = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent, headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const contentType = res.headers['content-type'] ?? null;
          let messages: Record<string, unknown>[];
          try {
            messages = parseBody(text, contentType);
          } catch {
            messages = [];
          }
          resolve({ status: res.statusCode ?? 0, contentType, messages, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(json);
  });
}

let nextId = 1;

export function request(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params !== undefined ? { params } : {}) };
}

export function initializeRequest(protocolVersion: string): Record<string, unknown> {
  return request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-it', version: '1.0.0' } });
}

/** SSE events of a response body that carry no `data` (e.g. 2025-11-25 priming events). */
export function emptySseEvents(text: string, contentType: string | null): string[] {
  if (!(contentType ?? '').includes('text/event-stream')) return [];
  return text
    .split(/\r?\n\r?\n/)
    .filter((event) => event.trim() !== '')
    .filter((event) => !event.split(/\r?\n/).some((line) => line.startsWith('data:') && line.slice(5).trim() !== ''));
}
