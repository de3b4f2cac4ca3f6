/**
 * What the SDK's stdio transport drops without a word: a line that is not JSON, or JSON that is not a JSON-RPC 2.0
 * message. JSON-RPC 2.0 owes the first a Parse error (-32700) and the second an Invalid Request (-32600), both with
 * id null when no id can be read, and the operator a log line; the connection serves on.
 *
 * The lines are read beside the transport, from the same chunks of its input (stdio-end.ts) (the transport skips a line it cannot parse and
 * reports one that fails its schema, so nothing is answered twice). Each line is parsed here once more: a few
 * microseconds per message on a one-client transport, against a silent client waiting for an answer that never comes.
 */
import type { Readable } from 'node:stream';
import { isPlainObject } from '../../core/json.js';
import { JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR } from '../../core/mcp-wire.js';

export type MalformedKind = 'parse_error' | 'invalid_request';

export interface MalformedLine {
  kind: MalformedKind;
  /** The line's length in bytes (its content is never kept: it may hold anything). */
  bytes: number;
  /** The JSON-RPC error message to write (one line, newline included). */
  reply: string;
}

const NEWLINE = 0x0a;

/**
 * Calls `onMalformed` for every complete line of `stdin` that is neither empty nor a JSON-RPC 2.0 message. A line
 * longer than `maxLineBytes` is not looked at (the transport ends the connection for it).
 */
export function watchMalformedLines(stdin: Readable, maxLineBytes: number, onMalformed: (line: MalformedLine) => void): () => void {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let skipping = false;
  const onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE)) {
      const tail = data.subarray(0, nl);
      if (!skipping && partialBytes + tail.length <= maxLineBytes) {
        const line = partial.length ? Buffer.concat([...partial, tail]) : tail;
        const malformed = checkLine(line);
        if (malformed) onMalformed(malformed);
      }
      partial = [];
      partialBytes = 0;
      skipping = false;
      data = data.subarray(nl + 1);
    }
    if (data.length === 0 || skipping) return;
    partialBytes += data.length;
    if (partialBytes > maxLineBytes) {
      skipping = true;
      partial = [];
      partialBytes = 0;
    } else partial.push(data);
  };
  stdin.on('data', onData);
  return () => stdin.off('data', onData);
}

/**
 * Writes (`write`, the transport's own writer: stdio-out.ts) the error each malformed line of `stdin` is owed, and
 * tells `onMalformed` (the log line); until the returned function is called (the transport closed: nothing more is
 * answered).
 */
export function answerMalformedLines(
  stdin: Readable,
  stdout: { write(text: string): Promise<void> },
  maxLineBytes: number,
  onMalformed: (line: MalformedLine) => void,
): () => void {
  let answering = true;
  const stop = watchMalformedLines(stdin, maxLineBytes, (line) => {
    if (!answering) return;
    // A failed write means stdout is gone: the transport closes on it, and nobody is left to answer.
    stdout.write(line.reply).catch(() => undefined);
    onMalformed(line);
  });
  return () => {
    answering = false;
    stop();
  };
}

/** What a line is, when it is not a message: undefined for a message (or an empty line, which the transport skips too). */
export function checkLine(line: Buffer): MalformedLine | undefined {
  const text = line.toString('utf8').replace(/\r$/, '');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'parse_error', bytes: line.length, reply: errorLine(null, JSONRPC_PARSE_ERROR, 'Parse error: the line is not JSON.') };
  }
  if (isMessage(value)) return undefined;
  const id = isPlainObject(value) && (typeof value.id === 'string' || typeof value.id === 'number') ? value.id : null;
  // A batch is not part of MCP over stdio; neither is anything else that is not one JSON-RPC 2.0 object.
  const why = Array.isArray(value) ? 'a batch (an array) is not accepted' : 'not a JSON-RPC 2.0 message';
  return { kind: 'invalid_request', bytes: line.length, reply: errorLine(id, JSONRPC_INVALID_REQUEST, `Invalid Request: ${why}.`) };
}

/** The shape every JSON-RPC 2.0 message has: a request or notification (`method`), or a response (`result` or `error`). */
function isMessage(value: unknown): boolean {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  return typeof value.method === 'string' || 'result' in value || 'error' in value;
}

function errorLine(id: string | number | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}
