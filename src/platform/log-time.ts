/**
 * The log line's `time`, as pino's `stdTimeFunctions.isoTime` writes it (`,"time":"2026-11-26T18:05:01.042Z"`), with
 * the date and the time to the second formatted once per second: isoTime builds a Date and formats it for every
 * line, the largest single step of a line in the bridge's profile (bench/README.md#the-log-line-at-info-what-is-left).
 * Held to isoTime by log-time.test.ts (the same text across second, day and year boundaries). Delete it when a line's
 * timestamp is no longer a visible step in `bench:profile`.
 */
let second = Number.NaN;
let prefix = '';
/** The same as bytes, for lines written into a buffer (log-line.ts). */
let prefixBytes = Buffer.alloc(0);

function enter(s: number): void {
  second = s;
  // "2026-11-26T18:05:01." — what stays the same for the whole second.
  prefix = `,"time":"${new Date(s * 1000).toISOString().slice(0, 20)}`;
  prefixBytes = Buffer.from(prefix, 'latin1');
}

/** `,"time":"<ISO 8601 UTC to the millisecond>"` for `now` (epoch milliseconds, the clock's by default). */
export function isoTime(now: number = Date.now()): string {
  const s = Math.floor(now / 1000);
  if (s !== second) enter(s);
  const ms = now - s * 1000;
  return `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}

/** What isoTime writes, written into `buf` at `at` (it must have room for 35 bytes) without a string: returns the end. */
export function isoTimeInto(buf: Buffer, at: number, now: number = Date.now()): number {
  const s = Math.floor(now / 1000);
  if (s !== second) enter(s);
  prefixBytes.copy(buf, at);
  at += prefixBytes.length;
  const ms = now - s * 1000;
  buf[at++] = 48 + Math.floor(ms / 100);
  buf[at++] = 48 + (Math.floor(ms / 10) % 10);
  buf[at++] = 48 + (ms % 10);
  buf[at++] = 90; // Z
  buf[at++] = 34; // "
  return at;
}
