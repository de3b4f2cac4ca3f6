/**
 * The fault test's load and its record: JSON-RPC over plain HTTP at 2025-11-25 (stateless, so any replica answers
 * from the request alone), one fresh connection per request (a connection refused or reset is then this request's,
 * never a kept-alive one's), each request written down with every answer it got or the transport error it met.
 * Calls and tasks carry a nonce of their own in their arguments, which the OXP fixture's call spans show: how a call
 * at the OXP server is tied to the MCP request that asked for it (the bridge makes the call_ids).
 */
import { request } from 'node:http';

export const REVISION = '2025-11-25';

export type ExchangeKind = 'plain' | 'task' | 'get' | 'result' | 'cancel';

/** One request and what came back. */
export interface Exchange {
  seq: number;
  kind: ExchangeKind;
  /** Through nginx, or straight to replica N. */
  via: 'nginx' | number;
  /** The request's nonce (calls and tasks), or the task's (task queries). */
  nonce?: string;
  taskId?: string;
  start: number;
  end?: number;
  status?: number;
  /** nginx's X-Upstream: the replicas it tried, the last one answering. */
  upstream?: string;
  /** JSON-RPC responses with this request's id (or id null: refused before it was read), in order. */
  answers: Record<string, unknown>[];
  /** The transport's error code (ECONNREFUSED, ECONNRESET, …) when no HTTP answer came. */
  transportError?: string;
}

/** Every exchange, numbered in the order sent. */
export class Ledger {
  readonly exchanges: Exchange[] = [];
  private seq = 0;
  next(kind: ExchangeKind, via: Exchange['via'], extra: Pick<Exchange, 'nonce' | 'taskId'>): Exchange {
    const exchange: Exchange = { seq: ++this.seq, kind, via, start: Date.now(), answers: [], ...extra };
    this.exchanges.push(exchange);
    return exchange;
  }
}

export interface Target {
  via: Exchange['via'];
  url: string;
}

/**
 * POSTs one JSON-RPC request to `target` and records it in `exchange`; never rejects. The HTTP answer's body is
 * read to its end (JSON, or an SSE stream whose events are each a message).
 */
export function exchangeRpc(exchange: Exchange, target: Target, token: string, method: string, params: Record<string, unknown>): Promise<Exchange> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: exchange.seq, method, params });
  const url = new URL(target.url);
  return new Promise((resolve) => {
    const done = (error?: NodeJS.ErrnoException) => {
      if (exchange.end !== undefined) return;
      exchange.end = Date.now();
      if (error) exchange.transportError = error.code ?? error.message;
      resolve(exchange);
    };
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        timeout: 120_000,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': REVISION,
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        exchange.status = res.statusCode;
        const upstream = res.headers['x-upstream'];
        if (typeof upstream === 'string') exchange.upstream = upstream;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => done(error));
        res.on('end', () => {
          exchange.answers = answersIn(Buffer.concat(chunks).toString('utf8'), exchange.seq);
          done();
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer within 120 s'), { code: 'TIMEOUT' })));
    req.on('error', (error) => done(error));
    req.end(body);
  });
}

/** The JSON-RPC responses in a body (JSON, or SSE `data:` lines) whose id is `id` or null. */
export function answersIn(text: string, id: number): Record<string, unknown>[] {
  const messages: unknown[] = [];
  const parse = (s: string) => {
    try {
      const value: unknown = JSON.parse(s);
      messages.push(...(Array.isArray(value) ? (value as unknown[]) : [value]));
    } catch {
      // Not JSON (an nginx error page): no message.
    }
  };
  if (/^\s*[[{]/.test(text)) parse(text);
  else for (const m of text.matchAll(/^data: ?(.*)$/gm)) parse(m[1]!);
  return messages.filter(
    (m): m is Record<string, unknown> =>
      typeof m === 'object' && m !== null && ('result' in m || 'error' in m) && ((m as { id?: unknown }).id === id || (m as { id?: unknown }).id === null),
  );
}

/** What the client knows of one task it was given. */
export interface TaskTrack {
  taskId: string;
  nonce: string;
  createdAt: number;
  /** When the client sent tasks/cancel for it (undefined: never). */
  cancelSentAt?: number;
  /** The status tasks/cancel answered with, if it answered with a task. */
  cancelAnswer?: string;
  /** Every status the client read, in order (tasks/get, tasks/cancel, tasks/result). */
  seen: { at: number; status: string }[];
  /** The statusMessage last read with a status (why a task failed). */
  statusMessage?: string;
  /** tasks/result's text, for a completed task. */
  resultText?: string;
}

/** The task in a CreateTaskResult answer, if that is what the exchange got. */
export function createdTask(exchange: Exchange): { taskId: string; status: string } | undefined {
  if (exchange.answers.length !== 1) return undefined;
  const task = (exchange.answers[0]!.result as { task?: { taskId?: unknown; status?: unknown } } | undefined)?.task;
  return typeof task?.taskId === 'string' ? { taskId: task.taskId, status: String(task.status) } : undefined;
}
