/** The log line every tool call leaves, at the level its outcome calls for. */
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';

/** One line per call; upstream detail (developer_message included) only at debug level. */
export function logOutcome(
  base: Logger,
  callLog: () => Logger,
  callFields: () => Record<string, unknown>,
  outcome: OxpCallOutcome,
  ms: number,
  attempts: number,
): void {
  const duration_ms = Math.round(ms * 10) / 10;
  // The child logger is only made for a line that will be written.
  const log = () => (attempts !== 1 ? callLog().child({ attempts }) : callLog());
  switch (outcome.kind) {
    case 'success':
      // The line every call writes at the default level: one object, no child logger (a child serialises its bindings apart).
      if (base.isLevelEnabled('info')) base.info({ ...callFields(), ...(attempts !== 1 ? { attempts } : {}), outcome: 'success', duration_ms }, 'tool call');
      return;
    case 'tool_error':
      if (!base.isLevelEnabled('info')) return;
      log().info({ outcome: 'tool_error', duration_ms, can_retry: outcome.error.canRetry }, 'tool call');
      if (outcome.error.developerMessage) log().debug({ developer_message: outcome.error.developerMessage }, 'tool error detail');
      return;
    case 'tool_crashed':
    case 'unavailable':
    case 'protocol_error':
    case 'unreachable':
    case 'timeout':
    case 'auth_failed':
      if (base.isLevelEnabled('warn'))
        log().warn(
          { outcome: outcome.kind, duration_ms, detail: outcome.detail, ...('status' in outcome ? { status: outcome.status } : {}) },
          'tool call failed upstream',
        );
      return;
    default:
      if (!base.isLevelEnabled('info')) return;
      log().info({ outcome: outcome.kind, duration_ms }, 'tool call');
      if ('developerMessage' in outcome && outcome.developerMessage) log().debug({ developer_message: outcome.developerMessage }, 'tool error detail');
  }
}

/**
 * The line of a call that ended without an answer: cancelled (the client cancelled it or went away, or the process
 * abandoned it on its way out) at info, like any call; thrown (a defect) at warn. `callLog` is the call's own logger
 * once its upstream call started, else the line is made from `fields`.
 */
export function logUnanswered(
  base: Logger,
  callLog: (() => Logger) | undefined,
  fields: () => Record<string, unknown>,
  outcome: 'cancelled' | 'internal_error',
  ms: number,
): void {
  const level = outcome === 'cancelled' ? 'info' : 'warn';
  if (!base.isLevelEnabled(level)) return;
  const duration_ms = Math.round(ms * 10) / 10;
  if (callLog) callLog()[level]({ outcome, duration_ms }, 'tool call');
  else base[level]({ ...fields(), outcome, duration_ms }, 'tool call');
}
