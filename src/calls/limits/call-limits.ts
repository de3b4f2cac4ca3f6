/**
 * The limits access rules carry, applied to calls (both directions): which
 * counter a call is charged to, and the store that counts it (in this
 * process, or in Redis shared by every replica: limit-store.ts).
 *
 * A counter is one rule's limit for one principal, one tool, or one
 * principal on one tool (`limits.per`); the rule is named by its id when it
 * has one (stable across reloads that reorder rules), else its position.
 */
import type { AccessDecision, RuleLimits } from '../../core/access-policy.js';
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

/** A refusal by a limit, and what its counter counts: a rule's (`limits.per`), or the caller's calls in flight (`caller`). */
export interface CallLimitRefusal extends LimitRefusal {
  per: RuleLimits['per'] | 'caller';
}

export class CallLimits {
  private store: Promise<LimitStore> | undefined;

  /** `open`: the store, opened on first use, so a policy without limits never loads it (nor lru-cache, nor Redis's client). */
  constructor(private readonly open: () => Promise<LimitStore>) {}

  loaded(): Promise<LimitStore> {
    return (this.store ??= this.open());
  }

  /** Charges one call to the counter its deciding rule names; a rule without limits admits without asking the store. */
  async admit(decision: AccessDecision, principal: Principal, tool: string): Promise<Admission | CallLimitRefusal> {
    if (!decision.allow || !decision.limits || !decision.rule) return FREE_ADMISSION;
    const { limits, rule } = decision;
    const key = `rule:${rule.id ?? `#${rule.index}`}${limits.per === 'tool' ? '' : `|p:${principal.subject}`}${limits.per === 'principal' ? '' : `|t:${tool}`}`;
    const verdict = await (await this.loaded()).acquire(key, limits);
    return verdict.ok ? verdict : { ...verdict, per: limits.per };
  }

  /**
   * Takes one of the caller's slots of calls in flight (`access.maxInFlightPerPrincipal`: every tool together,
   * counted where rules' limits are, so replicas sharing a Redis share it).
   */
  async holdCallerSlot(principal: Principal, maxInFlight: number): Promise<Admission | CallLimitRefusal> {
    const verdict = await (await this.loaded()).acquire(`cap:p:${principal.subject}`, { requestsPerMinute: 0, burst: 1, maxInFlight });
    return verdict.ok ? verdict : { ...verdict, per: 'caller' };
  }

  async close(): Promise<void> {
    if (this.store) await (await this.store).close();
  }
}

/** What one counter of a rule's limit counts (`limits.per`), as the limited caller reads it. */
const LIMITED: Record<CallLimitRefusal['per'], string> = {
  caller: 'for your calls running at once, to any tool',
  principal: 'for your calls to the tools this limit covers',
  tool: 'for calls to this tool, from every caller together',
  'principal-tool': 'for your calls to this tool',
};

/** The words a limited caller reads: what was limited (the caller, the tool, or the caller on this tool), and when to try again. */
export function limitRefusalText(refusal: CallLimitRefusal, tool: string): string {
  if (refusal.reason === 'store_unavailable')
    return `The call to ${tool} was not made: the bridge cannot check its usage limits right now. Try again in ${refusal.retryAfterSeconds} s.`;
  return `The call to ${tool} was not made: ${refusal.message.replace(/\.$/, '')} ${LIMITED[refusal.per]}. Try again in ${refusal.retryAfterSeconds} s.`;
}
