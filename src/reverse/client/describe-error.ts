/**
 * Failures of an MCP connection in words for logs, the console and OXP
 * error text: the network cause when there is one, else the cause chain.
 * Apart from the SDK adapter (mcp-client-sdk.ts) because it needs none of the SDK.
 */
import { isPlainObject } from '../../core/json.js';

/**
 * What went wrong, in words: the network cause when there is one (refused,
 * no such host, TLS), else the messages along the cause chain, each once
 * (fetch hides the reason two levels down: "fetch failed" alone says nothing).
 */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const chain = causeChain(error);
  for (const e of chain) {
    const text = e.code ? NETWORK_CODES[e.code] : undefined;
    if (text) {
      const where = e.hostname ?? (e.address ? `${e.address}${e.port ? `:${e.port}` : ''}` : e.path);
      return `${text}${where ? ` (${where})` : ''} [${e.code}]`;
    }
  }
  const messages: string[] = [];
  for (const e of chain) if (e.message && !messages.some((m) => m.includes(e.message))) messages.push(e.message);
  return messages.join(': ');
}

type ErrnoLike = NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };

/** The error and its causes (`cause`, the SDK's `data.cause`, an AggregateError's first), at most 6. */
function causeChain(error: Error): ErrnoLike[] {
  const chain: ErrnoLike[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 6) {
    chain.push(current);
    const data = (current as { data?: unknown }).data;
    current =
      (current as { cause?: unknown }).cause ??
      (isPlainObject(data) ? data.cause : undefined) ??
      (current instanceof AggregateError ? current.errors[0] : undefined);
  }
  return chain;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed (temporarily)',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOENT: 'command not found',
  EACCES: 'permission denied',
};
