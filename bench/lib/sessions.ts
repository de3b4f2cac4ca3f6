/**
 * The 1,000-session scenario of `npm run bench` (bench/run.ts) and bench/heap.ts: N legacy clients, each with its own
 * signed session id from an `initialize`, then every one of them calling `tools/call` in a loop beside 64 modern
 * clients, all at once, for a while.
 */
import { request as undiciRequest, type Agent } from 'undici';
import { MESSAGE, toolsCallRequest } from './workload.js';

export interface LegacySession {
  id: string;
  version: string;
}

const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** `count` legacy `initialize` calls in turn, the revisions in rotation; the session ids they were given. */
export async function openSessions(url: string, count: number, dispatcher: Agent): Promise<LegacySession[]> {
  const sessions: LegacySession[] = [];
  for (let i = 0; i < count; i++) {
    const version = LEGACY_REVISIONS[i % LEGACY_REVISIONS.length]!;
    const res = await undiciRequest(url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: `bench-${i}`, version: '1' } },
      }),
    });
    await res.body.text();
    const id = res.headers['mcp-session-id'];
    if (res.statusCode !== 200 || typeof id !== 'string') throw new Error(`initialize #${i} answered ${res.statusCode} without a session id`);
    sessions.push({ id, version });
  }
  return sessions;
}

/** Every session calling in a loop beside `modernClients` modern ones until `seconds` have passed: calls answered right, and failed. */
export async function driveSessions(
  url: string,
  sessions: LegacySession[],
  modernClients: number,
  seconds: number,
  dispatcher: Agent,
): Promise<{ ok: number; failed: number; seconds: number }> {
  const deadline = performance.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  const call = toolsCallRequest('legacy');
  const modern = toolsCallRequest('modern');
  const answeredRight = (status: number | undefined, text: string) => status === 200 && text.includes(MESSAGE) && !text.includes('"isError":true');
  const legacyLoop = async ({ id, version }: LegacySession) => {
    // Clients of 2025-06-18 and later send the version header; older ones send none and the session id says which.
    const { 'mcp-protocol-version': _v, ...base } = call.headers;
    const headers: Record<string, string> = { ...base, 'mcp-session-id': id, ...(version >= '2025-06-18' ? { 'mcp-protocol-version': version } : {}) };
    while (performance.now() < deadline) {
      const res = await undiciRequest(url, { method: 'POST', dispatcher, headers, body: call.body }).catch(() => undefined);
      const text = res ? await res.body.text() : '';
      if (answeredRight(res?.statusCode, text)) ok++;
      else failed++;
    }
  };
  const modernLoop = async () => {
    while (performance.now() < deadline) {
      const res = await undiciRequest(url, { method: 'POST', dispatcher, headers: modern.headers, body: modern.body }).catch(() => undefined);
      const text = res ? await res.body.text() : '';
      if (answeredRight(res?.statusCode, text)) ok++;
      else failed++;
    }
  };
  const started = performance.now();
  await Promise.all([...sessions.map(legacyLoop), ...Array.from({ length: modernClients }, modernLoop)]);
  return { ok, failed, seconds: (performance.now() - started) / 1000 };
}

/**
 * One call per session and per modern client at once, each held by the bench's OXP server until `POST /release`
 * (bench/servers/oxp.ts): resolves when all are answered, with how many were answered right.
 */
export async function holdCalls(url: string, sessions: LegacySession[], modernClients: number, dispatcher: Agent): Promise<number> {
  const legacy = toolsCallRequest('legacy');
  const modern = toolsCallRequest('modern');
  const held = (body: string) => body.replace(JSON.stringify(MESSAGE), '"hold"');
  const one = async (headers: Record<string, string>, body: string) => {
    const res = await undiciRequest(url, { method: 'POST', dispatcher, headers, body: held(body) });
    const text = await res.body.text();
    return res.statusCode === 200 && text.includes('hold') && !text.includes('"isError":true') ? 1 : 0;
  };
  const answers = await Promise.all([
    ...sessions.map(({ id, version }) => {
      const { 'mcp-protocol-version': _v, ...base } = legacy.headers;
      return one({ ...base, 'mcp-session-id': id, ...(version >= '2025-06-18' ? { 'mcp-protocol-version': version } : {}) }, legacy.body);
    }),
    ...Array.from({ length: modernClients }, () => one(modern.headers, modern.body)),
  ]);
  return answers.reduce((a: number, b) => a + b, 0);
}
