/** Hostile OXP scenarios: face (served by ../hostile-oxp-server.ts, written with ../oxp-kit.ts). */
import { catalogScenario, sendJson, toolDefinition, type HostileOxpScenario } from '../oxp-kit.js';

/** A string that must never leave the upstream: it sits in an upstream 500 body. */
export const READYZ_CANARY = 'internal db password=CANARY-7f3a9 at 10.0.0.5';

/**
 * When each `hold` call's socket closed (ms since epoch), by the call's `input.tag`:
 * the bridge aborting a call shows up here as a socket close.
 */
export const heldCallClosedAt = new Map<string, number>();
/** When each `hold` call arrived, by `input.tag`. */
export const heldCallArrivedAt = new Map<string, number>();

const tagOf = (body: string): string => {
  const input = (JSON.parse(body || '{}') as { request?: { input?: { tag?: unknown } } }).request?.input;
  return typeof input?.tag === 'string' ? input.tag : '';
};

const success = (body: string, value: unknown) => ({
  $schema: 'urn:oxp:1.0',
  success: true,
  call_id: (JSON.parse(body || '{}') as { request?: { call_id?: string } }).request?.call_id ?? 'c1',
  result: { value },
});

export const FACE_SCENARIOS: Record<string, HostileOxpScenario> = {
  /** Lists fine; every call is held open forever, and the time its socket closes is recorded. */
  hold: catalogScenario(
    () => [toolDefinition('Hold', { input_schema: { type: 'object', properties: { tag: { type: 'string' } } } })],
    (req, _res, ctx) => {
      const tag = tagOf(ctx.body);
      heldCallArrivedAt.set(tag, Date.now());
      req.socket.once('close', () => heldCallClosedAt.set(tag, Date.now()));
    },
  ),
  /** Answers each call after `input.ms` milliseconds (a long-running tool). */
  slow: catalogScenario(
    () => [toolDefinition('Slow', { input_schema: { type: 'object', properties: { ms: { type: 'integer' } } } })],
    (_req, res, ctx) => {
      const ms = Number((JSON.parse(ctx.body || '{}') as { request?: { input?: { ms?: unknown } } }).request?.input?.ms ?? 0);
      setTimeout(() => sendJson(res, 200, success(ctx.body, `slept ${ms}`)), ms);
    },
  ),
  /** Its catalog endpoint fails with a 500 whose body carries internal details (a canary). */
  'leaky-500': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`Traceback: ${READYZ_CANARY}`);
  },
  /** Its catalog endpoint answers 200 with a body that is not JSON but quotes internals. */
  'leaky-not-json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html>${READYZ_CANARY}</html>`);
  },
};
