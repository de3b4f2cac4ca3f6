/** A JSON answer on a node response, with the headers express's `res.json` writes (charset, length; no ETag): part of the OXP face's copy of express (reverse/face/routes.ts). */
import type { ServerResponse } from 'node:http';

/** `body` as JSON (a string is taken as JSON text already). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
