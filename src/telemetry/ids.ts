/**
 * Trace and span ids for the tracer (otel-sdk.ts): random hex cut from a
 * pool. The SDK's RandomIdGenerator draws each id from `Math.random()` 4
 * bytes at a time and hex-encodes it on its own, ~1 µs per id and three ids
 * per traced call (bench/README.md, "Tracing cost"). Here 4 KiB of
 * `crypto.randomFillSync` output is hex-encoded at once, and each id is a
 * slice of that string (V8 shares the characters: no copy). A cryptographic
 * source also makes the ids unpredictable, which Math.random's are not (W3C
 * Trace Context asks for randomly generated ids).
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

export class PooledIdGenerator {
  private readonly bytes = Buffer.allocUnsafe(POOL_BYTES);
  private hex = '';
  private offset = 0;

  /** `fill`: the random source (a test passes one that yields zeros). */
  constructor(private readonly fill: (bytes: Buffer) => Buffer = randomFillSync) {}

  /** 16 random bytes as 32 lowercase hex characters, never all zero (an invalid W3C trace id). */
  generateTraceId(): string {
    return this.next(32);
  }

  /** 8 random bytes as 16 lowercase hex characters, never all zero. */
  generateSpanId(): string {
    return this.next(16);
  }

  private next(chars: number): string {
    for (;;) {
      if (this.offset + chars > this.hex.length) {
        this.hex = this.fill(this.bytes).toString('hex');
        this.offset = 0;
      }
      const id = this.hex.slice(this.offset, (this.offset += chars));
      if (!ALL_ZERO.test(id)) return id;
    }
  }
}

const ALL_ZERO = /^0+$/;
