/**
 * A request body, read once and parsed once, within bounds: the MCP face's
 * POST bodies and the OXP face's.
 *
 * An owned copy (docs/design.md, "Owned copies of library code") of the SDK's
 * `readRequestBody`, which takes a web `Request`: the MCP face reads the node
 * stream itself, because a web stream over the node request per call costs
 * far more than the read (`npm run bench:receipts -- body-reader`; the
 * figures: bench/README.md#owned-copies-receipts-issue-31). The bounds and their answers are the SDK's: over `maxBytes`
 * (declared or counted) is 413 with the SDK's message; the text is decoded as
 * its TextDecoder does (UTF-8, a leading BOM dropped), held there by
 * test/integration/differential.test.ts (a BOM, a body too large). Delete it
 * when the SDK reads a node request, or a web one within ~2 % of this. The
 * depth bound is the bridge's own (the SDK has none): JSON nested deeper than
 * `maxDepth` is refused before any parser sees it (the OXP face, which
 * answers deep inputs with a 422 of its own after parsing, passes no depth).
 */
import type { IncomingMessage } from 'node:http';
import { exceedsJsonDepth } from '../../core/json.js';

export type BodyRead =
  | { kind: 'json'; text: string; body: unknown }
  /** Empty or not JSON: the SDK answers it from the text. */
  | { kind: 'not-json'; text: string }
  | { kind: 'too-large' }
  | { kind: 'too-deep' }
  | { kind: 'failed' };

export function tooLargeMessage(maxBytes: number): string {
  return `Payload Too Large: Request body must not exceed ${maxBytes} bytes`;
}

export function readBody(req: IncomingMessage, maxBytes: number, maxDepth?: number): Promise<BodyRead> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      resolve(read);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        settle({ kind: 'too-large' });
      }
    });
    req.on('error', () => settle({ kind: 'failed' }));
    req.on('aborted', () => settle({ kind: 'failed' }));
    req.on('end', () => {
      let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (maxDepth !== undefined && exceedsJsonDepth(text, maxDepth)) return settle({ kind: 'too-deep' });
      settle(parse(text));
    });
  });
}

function parse(text: string): BodyRead {
  if (text.length === 0) return { kind: 'not-json', text };
  try {
    return { kind: 'json', text, body: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'not-json', text };
  }
}
