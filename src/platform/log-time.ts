/**
 * The log line's `time`, as pino's `stdTimeFunctions.isoTime` writes it (`,"time":"2026-11-26T18:05:01.042Z"`), with
 * the date and the time to the second formatted once per second: isoTime builds a Date and formats it for every
 * line, the largest single step of a line in the bridge's profile (bench/README.md#the-log-line-at-info-what-is-left).
 * Held to isoTime by log-time.test.ts (the same text across second, day and year boundaries). Delete it when a line's
 * timestamp is no longer a visible step in `bench:profile`.
 */
let second = Number.NaN;
let prefix = '';

/** `,"time":"<ISO 8601 UTC to the millisecond>"` for `now` (epoch milliseconds, the clock's by default). */
export function isoTime(now: number = Date.now()): string {
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    // "2026-11-26T18:05:01." — what stays the same for the whole second.
    prefix = `,"time":"${new Date(s * 1000).toISOString().slice(0, 20)}`;
  }
  const ms = now - s * 1000;
  return `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}
