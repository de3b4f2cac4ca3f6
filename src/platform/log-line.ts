/**
 * The per-call log line (calls/gate-record.ts) written without pino's `_asJson`: the same bytes pino writes for the
 * same fields, built in one buffer from pre-encoded keys rather than by concatenating a string per key and value
 * (~2 KB of garbage and a visible share of a call's CPU at `info`: bench/README.md, "The forward call at the floor's
 * cost (issue 39)"), and handed to the logger's destination as bytes when it takes them (the process's LineWriter:
 * no string of the line is made), else as one string. Held byte for byte to pino by log-line.test.ts, for every key,
 * at both levels, and for the values it hands back to pino.
 *
 * What is written here passes no redaction, so it takes only the keys of CALL_LINE_KEYS, none of which REDACT_PATHS
 * names (the test holds that), and only values it can write exactly as pino would: printable ASCII strings without a
 * quote or a backslash, numbers, booleans, a rule's reference. Anything else (a tool name in another script, a detail
 * with quotes, a line longer than the buffer) makes `end` answer false, and the caller writes the line through pino.
 * Only a logger made by createLogger has a writer (`lineWriterOf`); a child logger, with its own bindings, has none.
 *
 * An owned copy of library code (docs/design.md, "Owned copies of library code"): what pino's `_asJson` does, for one
 * line of known keys. Its receipt: `npm run bench:alloc`, −1.9 KB per call (pino's share was 2.1 KB; bench/README.md,
 * issue 39, "Garbage, third round"); the CPU it saves at `info` is for `npm run bench` on an idle machine (issue 39's
 * target: `info` within 10 % of `warn`). Delete it when pino builds a line without a string per key and value.
 */

/** The keys of a call's log line, in no particular order (the line's order is the order they are given in). */
export const CALL_LINE_KEYS = [
  'call_id',
  'trace_id',
  'span_id',
  'attempts',
  'can_retry',
  'detail',
  'status',
  'mcp_task_id',
  'tool',
  'upstream',
  'oxp_tool',
  'protocol_version',
  'principal',
  'rule',
  'task_id',
  'outcome',
  'duration_ms',
] as const;

export type CallLineKey = (typeof CALL_LINE_KEYS)[number];

/** A log line's fields, given in the line's order; an undefined value is left out, as pino leaves it out. */
export interface LineFields {
  text(key: CallLineKey, value: string | undefined): void;
  number(key: CallLineKey, value: number): void;
  flag(key: CallLineKey, value: boolean): void;
  /** An access rule's reference (`{index, id?}`, in that order, as the policy makes it). */
  ref(key: CallLineKey, value: { index: number; id?: string }): void;
}

/** The fields as one object, for pino: the line when it cannot be written here, or has no writer. */
export class FieldRecord implements LineFields {
  readonly fields: Record<string, unknown> = {};

  text(key: CallLineKey, value: string | undefined): void {
    if (value !== undefined) this.fields[key] = value;
  }

  number(key: CallLineKey, value: number): void {
    this.fields[key] = value;
  }

  flag(key: CallLineKey, value: boolean): void {
    this.fields[key] = value;
  }

  ref(key: CallLineKey, value: { index: number; id?: string }): void {
    this.fields[key] = value;
  }
}

/** The longest line written here; a longer one goes through pino. */
const MAX_LINE = 4096;
/** Each key as written before its value. */
const KEY_BYTES: Record<CallLineKey, Buffer> = Object.fromEntries(CALL_LINE_KEYS.map((key) => [key, Buffer.from(`,"${key}":`, 'latin1')])) as Record<
  CallLineKey,
  Buffer
>;
const MSG_KEY = Buffer.from(',"msg":', 'latin1');
const RULE_INDEX = Buffer.from('{"index":', 'latin1');
const RULE_ID = Buffer.from(',"id":', 'latin1');
const TRUE = Buffer.from('true', 'latin1');
const FALSE = Buffer.from('false', 'latin1');

/**
 * One line being written: `begin`, the fields, `end`. One per writer, reused line after line: a line is begun and
 * ended within one synchronous step (the gate's record), so no two are ever open at once.
 */
export class CallLineWriter implements LineFields {
  private readonly buf = Buffer.allocUnsafe(MAX_LINE);
  private at = 0;
  /** False once a value could not be written exactly as pino would, or did not fit: `end` then writes nothing. */
  private ok = true;
  /** `{"level":<n>` per level number, as pino's level cache has it. */
  private readonly levels = new Map<number, Buffer>();

  constructor(
    /** Given the line as bytes when it takes them (a copy of its own: LineWriter gathers it as it is), else as a string. */
    private readonly destination: { write(line: string): unknown; writeBytes?(line: Uint8Array): void },
    /** The logger's bindings as pino writes them after the time (`,"service":"mcp-oxp-bridge"`). */
    private readonly bindings: Buffer,
    private readonly time: (buf: Buffer, at: number) => number,
  ) {}

  /** Starts a line at level number `level`. */
  begin(level: number): LineFields {
    let prefix = this.levels.get(level);
    if (prefix === undefined) this.levels.set(level, (prefix = Buffer.from(`{"level":${level}`, 'latin1')));
    this.ok = true;
    this.at = prefix.copy(this.buf, 0);
    this.at = this.time(this.buf, this.at);
    this.bytes(this.bindings);
    return this;
  }

  /** Ends the line with its message and writes it; false (nothing written) when it must go through pino instead. */
  end(msg: string): boolean {
    this.bytes(MSG_KEY);
    this.string(msg);
    if (this.ok && this.at + 2 <= MAX_LINE) {
      this.buf[this.at++] = 125; // }
      this.buf[this.at++] = 10; // \n
      if (this.destination.writeBytes === undefined) this.destination.write(this.buf.toString('latin1', 0, this.at));
      else {
        const line = Buffer.allocUnsafe(this.at);
        this.buf.copy(line, 0, 0, this.at);
        this.destination.writeBytes(line);
      }
      return true;
    }
    return false;
  }

  text(key: CallLineKey, value: string | undefined): void {
    if (value === undefined) return;
    this.bytes(KEY_BYTES[key]);
    this.string(value);
  }

  number(key: CallLineKey, value: number): void {
    this.bytes(KEY_BYTES[key]);
    this.ascii(Number.isFinite(value) ? String(value) : 'null');
  }

  flag(key: CallLineKey, value: boolean): void {
    this.bytes(KEY_BYTES[key]);
    this.bytes(value ? TRUE : FALSE);
  }

  ref(key: CallLineKey, value: { index: number; id?: string }): void {
    this.bytes(KEY_BYTES[key]);
    this.bytes(RULE_INDEX);
    this.ascii(String(value.index));
    if (value.id !== undefined) {
      this.bytes(RULE_ID);
      this.string(value.id);
    }
    if (this.at < MAX_LINE)
      this.buf[this.at++] = 125; // }
    else this.ok = false;
  }

  private bytes(b: Buffer): void {
    if (this.at + b.length > MAX_LINE) this.ok = false;
    else this.at += b.copy(this.buf, this.at);
  }

  /** A string value in quotes: only printable ASCII without `"` or `\`, which pino writes as it is (else not ok). */
  private string(value: string): void {
    const end = this.at + value.length + 2;
    if (!this.ok || end > MAX_LINE) {
      this.ok = false;
      return;
    }
    const { buf } = this;
    buf[this.at] = 34;
    for (let i = 0, at = this.at + 1; i < value.length; i++, at++) {
      const c = value.charCodeAt(i);
      if (c < 32 || c > 126 || c === 34 || c === 92) {
        this.ok = false;
        return;
      }
      buf[at] = c;
    }
    buf[end - 1] = 34;
    this.at = end;
  }

  /** What String() made of a number (ASCII only). */
  private ascii(text: string): void {
    if (this.at + text.length > MAX_LINE) {
      this.ok = false;
      return;
    }
    for (let i = 0; i < text.length; i++) this.buf[this.at++] = text.charCodeAt(i);
  }
}

const writers = new WeakMap<object, CallLineWriter>();

/** Gives `log` (made by createLogger, writing to `destination`) its line writer. */
export function addLineWriter(log: object, writer: CallLineWriter): void {
  writers.set(log, writer);
}

/** The line writer of a logger made by createLogger; undefined for any other (a child logger, a test's pino). */
export function lineWriterOf(log: object): CallLineWriter | undefined {
  return writers.get(log);
}
