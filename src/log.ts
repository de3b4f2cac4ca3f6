/**
 * Logging: pino, always to stderr (stdout belongs to the stdio protocol).
 * Secrets are redacted by path as a second line of defence; the first is that
 * no code logs them.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers["oxp-api-key"]',
  'headers["x-api-key"]',
  'context.secrets',
  'context.authorization',
  'request.context',
  'developer_message',
  'token',
  'apiKey',
  'secret',
];

export function createLogger(level: string, destination: NodeJS.WritableStream = process.stderr): Logger {
  return pino(
    {
      level,
      base: { service: 'mcp-oxp-bridge' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
