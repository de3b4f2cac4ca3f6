/** The doctor's output: one line per step, ✓ or ✗ with the reason and what to do. */
export interface StepReport {
  pass(what: string): void;
  fail(what: string, reason: string, hint?: string): void;
  skip(what: string, why: string): void;
  /** A line under a step that is no check of its own (counted neither way). */
  note(line: string): void;
  /** The summary line; the exit code (0 all passed, 1 a check failed). */
  finish(): number;
  readonly failed: number;
}

export function createReport(write: (line: string) => void): StepReport {
  let passed = 0;
  let failed = 0;
  return {
    pass(what) {
      passed++;
      write(`✓ ${what}`);
    },
    fail(what, reason, hint) {
      failed++;
      write(`✗ ${what}: ${reason}${hint ? `\n    → ${hint}` : ''}`);
    },
    skip(what, why) {
      write(`- ${what}: skipped (${why})`);
    },
    note(line) {
      write(`  ${line}`);
    },
    finish() {
      write(failed === 0 ? `all ${passed} checks passed` : `${failed} of ${passed + failed} checks failed`);
      return failed === 0 ? 0 : 1;
    },
    get failed() {
      return failed;
    },
  };
}
