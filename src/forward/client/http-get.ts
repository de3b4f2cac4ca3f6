/**
 * GET over node:http(s) for the OXP client's occasional requests: the tool
 * list and an authorization `check_url`. tools/call goes through the
 * keep-alive pool of call-pool.ts, on node:http too.
 *
 * Why no pool here: these GETs are rare (one per refresh, one per check), so
 * each uses a fresh connection, closed after the answer; a pooled connection
 * would only sit idle between refreshes and be found closed by the server.
 *
 * Failures are thrown as errors with a `code` for client.ts to classify as it
 * classifies the pool's: the system's own codes (ECONNREFUSED, TLS codes, ...)
 * and, for the two bounds node:http lacks, CONNECT_TIMEOUT and RESPONSE_TOO_LARGE.
 */
import { httpModule } from '../../platform/net/node-http.js';

export interface HttpGetOptions {
  headers: Record<string, string>;
  /** Aborts the exchange (the caller's deadline and cancellation). */
  signal: AbortSignal;
  connectTimeoutMs: number;
  maxResponseBytes: number;
}

export interface HttpGetResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

export class HttpGetError extends Error {
  constructor(
    readonly code: 'CONNECT_TIMEOUT' | 'RESPONSE_TOO_LARGE',
    message: string,
  ) {
    super(message);
    this.name = 'HttpGetError';
  }
}

export function httpGet(url: URL, options: HttpGetOptions): Promise<HttpGetResponse> {
  const { request } = httpModule(url.protocol === 'https:' ? 'https:' : 'http:');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: options.headers, agent: false, signal: options.signal }, (res) => {
      const declared = Number(res.headers['content-length']);
      if (declared > options.maxResponseBytes) return void req.destroy(tooLarge(options.maxResponseBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) req.destroy(tooLarge(options.maxResponseBytes));
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    // node:http's `timeout` is an idle timeout; the connect timeout is the handshake's alone (TCP, and TLS for https).
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => req.destroy(new HttpGetError('CONNECT_TIMEOUT', `no connection within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
      timer.unref();
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.end();
  });
}

function tooLarge(maxBytes: number) {
  return new HttpGetError('RESPONSE_TOO_LARGE', `response larger than ${maxBytes} bytes`);
}

/**
 * Response headers one string each (repeated ones joined, as HTTP allows), for the GETs and the pool's POSTs alike:
 * the same object when no header repeats (the common answer), so a call makes no copy.
 */
export function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  let repeated = false;
  for (const name in headers) if (Array.isArray(headers[name])) repeated = true;
  if (!repeated) return headers as Record<string, string | undefined>;
  const flat: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
