/**
 * Legacy (2025-era) session ids that carry their own state.
 *
 * The bridge keeps no session table: the id minted on `initialize` is a
 * signed token holding the negotiated revision, so any process holding the
 * key can serve the session (no sticky routing, nothing lost on restart) and
 * a forged or expired id is refused with 404, which tells the client to
 * initialize again.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SessionState {
  /** Negotiated protocol version. */
  v: string;
  /** Issued at, epoch seconds. */
  iat: number;
  /** 1 when the client declared URL-mode elicitation in initialize. */
  e?: 1;
}

const PREFIX = 's1.';

export class SessionCodec {
  private readonly key: Buffer;

  constructor(secret: string | undefined, private readonly ttlSeconds: number, private readonly now: () => number = Date.now) {
    // Without a configured secret, sessions are valid for this process only.
    this.key = secret ? Buffer.from(secret, 'utf8') : randomBytes(32);
  }

  mint(version: string, urlElicitation = false): string {
    const state: SessionState = { v: version, iat: Math.floor(this.now() / 1000), ...(urlElicitation ? { e: 1 as const } : {}) };
    const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${PREFIX}${payload}.${this.mac(payload)}`;
  }

  /** The state of a genuine, unexpired id; undefined otherwise. */
  verify(id: string): SessionState | undefined {
    if (!id.startsWith(PREFIX) || id.length > 512) return undefined;
    const [payload, mac] = id.slice(PREFIX.length).split('.');
    if (!payload || !mac) return undefined;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SessionState;
      if (typeof state.v !== 'string' || typeof state.iat !== 'number') return undefined;
      if (this.now() / 1000 - state.iat > this.ttlSeconds) return undefined;
      return state;
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
