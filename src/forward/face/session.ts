/**
 * Legacy (2025-era) session ids that carry their own state.
 *
 * The bridge keeps no session table: the id minted on `initialize` is the
 * session state itself — the negotiated revision and the client's
 * URL-elicitation capability — sealed (platform/shared/seal.ts: AES-256-GCM, encrypted
 * and integrity-protected). Any replica holding the same secret can serve the
 * session: no sticky routing, no shared store, nothing lost on restart. A
 * forged, altered or expired id is refused with 404, which tells the client
 * to initialize again.
 */
import { createSealer, sealingKey, type Sealer } from '../../platform/shared/seal.js';

export interface SessionState {
  /** The negotiated protocol revision. */
  revision: string;
  /** Issued at, epoch seconds. */
  issuedAt: number;
  /** The client declared URL-mode elicitation in initialize. */
  urlElicitation: boolean;
}

/**
 * A SessionState as it is sealed into the id: short keys, since the id travels in every request's header, and the
 * keys ids minted by earlier releases carry, so that they still open (session.test.ts: a deployment's sessions
 * survive an upgrade, and replicas of two releases serve each other's sessions while it rolls out).
 */
interface SealedState {
  /** `revision`. */
  v: string;
  /** `issuedAt`. */
  iat: number;
  /** `urlElicitation`, when true. */
  e?: 1;
}

/** `s2.` base64url(iv ‖ ciphertext ‖ tag) of the JSON SealedState (platform/shared/seal.ts). */
const PREFIX = 's2.';
const MAX_ID_CHARS = 512;

export class SessionCodec {
  private readonly sealer: Sealer;

  constructor(
    secret: string | undefined,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    // A key of its own, derived from the shared secret; without one, sessions are valid for this process only.
    this.sealer = createSealer(sealingKey(secret, 'mcp-oxp-bridge/session'), PREFIX, MAX_ID_CHARS);
  }

  mint(revision: string, urlElicitation = false): string {
    const sealed: SealedState = { v: revision, iat: Math.floor(this.now() / 1000), ...(urlElicitation ? { e: 1 as const } : {}) };
    return this.sealer.seal(JSON.stringify(sealed));
  }

  /** The state of a genuine, unexpired id; undefined otherwise. */
  verify(id: string): SessionState | undefined {
    const plain = this.sealer.open(id);
    if (typeof plain !== 'string') return undefined; // wrong key, altered bytes, or not our format
    try {
      const sealed = JSON.parse(plain) as SealedState;
      if (typeof sealed.v !== 'string' || typeof sealed.iat !== 'number') return undefined;
      if (this.now() / 1000 - sealed.iat > this.ttlSeconds) return undefined;
      return { revision: sealed.v, issuedAt: sealed.iat, urlElicitation: sealed.e === 1 };
    } catch {
      return undefined; // not a state this codec sealed
    }
  }
}
