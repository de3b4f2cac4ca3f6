/**
 * The two errors a configuration can raise, in a module of their own: whatever reports a bad setting (the telemetry
 * set-up, the upstreams, the oxp-server command) needs the class, not the loader and its schema.
 */

/** A configuration value is wrong: the bridge stops with this message (exit 2). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The command line itself is wrong (an unknown flag, a missing value): a ConfigError that is about usage, not values. */
export class UsageError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
