/**
 * The limits access rules carry, applied to calls (both directions): which
 * counter a call is charged to, and the store that counts it (in this
 * process, or in Redis shared by every replica: limit-store.ts).
 *
 * A counter is one rule's limit for one principal, one tool, or one
 * principal on one tool (`limits.per`); the rule is named by its id when it
 * has one (stable across reloads that reorder rules), else its position.
 */
import type { AccessDecision } from '../../core/access-policy.js';
import type { Principal } from '../../core/principal.js';
import type { LimitRefusal, LimitStore } from './limit-types.js';

/** What a call holds once admitted: give it back when the call ends (idempotent). */
export interface Admission {
  ok: true;
  release(): void;
  /** Passed uncounted: the store could not be reached and `onUnavailable` is `allow`. */
  degraded?: true;
}

/** What a call no limit counts holds: nothing to give back. */
export const FREE_ADMISSION: Admission = { ok: true, release: () => undefined };

export class CallLimits {
  private store: Promise<LimitStore> | undefined;

  /** `open`: the store, opened on first use, so a policy without limits never loads it (nor lru-cache, nor Redis's client). */
  constructor(private readonly open: () => Promise<LimitStore>) {}

  loaded(): Promise<LimitStore> {
    return (this.store ??= this.open());
  }

  /** Charges one call to the counter its deciding rule names; a rule without limits admits without asking the store. */
  async admit(decision: AccessDecision, principal: Principal, tool: string): Promise<Admission | LimitRefusal> {
    if (!decision.allow || !decision.limits || !decision.rule) return FREE_ADMISSION;
    const { limits, rule } = decision;
    const key = `rule:${rule.id ?? `#${rule.index}`}${limits.per === 'tool' ? '' : `|p:${principal.subject}`}${limits.per === 'principal' ? '' : `|t:${tool}`}`;
    return (await this.loaded()).acquire(key, limits);
  }

  async close(): Promise<void> {
    if (this.store) await (await this.store).close();
  }
}

/** The words a limited caller reads: whose limit, and when to try again. */
export function limitRefusalText(refusal: LimitRefusal, tool: string): string {
  if (refusal.reason === 'store_unavailable')
    return `The call to ${tool} was not made: the bridge cannot check its usage limits right now. Try again in ${refusal.retryAfterSeconds} s.`;
  return `The call to ${tool} was not made: ${refusal.message.replace(/\.$/, '')} for your calls to this tool. Try again in ${refusal.retryAfterSeconds} s.`;
}
