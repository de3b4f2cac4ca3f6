/**
 * Legacy (2025-era) session ids that carry their own state.
 *
 * The bridge keeps no session table: the id minted on `initialize` is the
 * session state itself — the negotiated revision and the client's
 * URL-elicitation capability — sealed with AES-256-GCM (encrypted and
 * integrity-protected). Any replica holding the same secret can serve the
 * session: no sticky routing, no shared store, nothing lost on restart. A
 * forged, altered or expired id is refused with 404, which tells the client
 * to initialize again.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface SessionState {
  /** Negotiated protocol version. */
  v: string;
  /** Issued at, epoch seconds. */
  iat: number;
  /** 1 when the client declared URL-mode elicitation in initialize. */
  e?: 1;
}

const PREFIX = 's2.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SessionCodec {
  private readonly key: Buffer;

  constructor(secret: string | undefined, private readonly ttlSeconds: number, private readonly now: () => number = Date.now) {
    // A key of its own, derived from the shared secret; without one, sessions are valid for this process only.
    this.key = createHmac('sha256', secret ?? randomBytes(32)).update('mcp-oxp-bridge/session').digest();
  }

  mint(version: string, urlElicitation = false): string {
    const state: SessionState = { v: version, iat: Math.floor(this.now() / 1000), ...(urlElicitation ? { e: 1 as const } : {}) };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The state of a genuine, unexpired id; undefined otherwise. */
  verify(id: string): SessionState | undefined {
    if (!id.startsWith(PREFIX) || id.length > 512) return undefined;
    const encoded = id.slice(PREFIX.length);
    const raw = Buffer.from(encoded, 'base64url');
    // Only the canonical encoding: Node's decoder silently drops stray characters.
    if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== encoded) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const state = JSON.parse(plain) as SessionState;
      if (typeof state.v !== 'string' || typeof state.iat !== 'number') return undefined;
      if (this.now() / 1000 - state.iat > this.ttlSeconds) return undefined;
      return state;
    } catch {
      return undefined; // wrong key, altered bytes, or not our format
    }
  }
}
