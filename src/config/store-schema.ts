/**
 * The `store` section of the configuration: where the counters behind
 * access-policy limits live (src/calls/limits/limit-store.ts). Part of
 * CONFIG_SCHEMA (schema.ts).
 */
import type { FromSchema } from './from-schema.js';

const ms = (description: string, def: number, min: number, max: number) =>
  ({ type: 'integer', minimum: min, maximum: max, default: def, description }) as const;

export const STORE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Where the counters of access-policy limits live. Without `redis`: in each process, so each replica enforces its own copy of every limit.',
  properties: {
    redis: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      description: 'Counters in Redis: every replica that names the same server and keyPrefix enforces one limit together.',
      properties: {
        url: {
          type: 'string',
          maxLength: 2048,
          pattern: '^(rediss?://[^\\s]+|/[^\\s]+)$',
          description:
            'redis://[user:password@]host[:port][/db], rediss:// for TLS, or the absolute path of a unix socket. The password is never logged nor shown in an error.',
        },
        keyPrefix: {
          type: 'string',
          pattern: '^[A-Za-z0-9:_.-]{1,64}$',
          default: 'mcp-oxp-bridge:',
          description: 'Start of every key the bridge writes; replicas that share limits share it, other deployments on the same Redis take another.',
        },
        onUnavailable: {
          enum: ['share', 'allow', 'refuse'],
          default: 'share',
          description:
            "When Redis does not answer within commandTimeoutMs: 'share' (the default) has each replica enforce its share of every limit by itself (the limit divided by the replicas seen in Redis, rounded up; counted all along, so a switch mid-minute remembers what this replica let through), 'allow' lets limited calls through uncounted, 'refuse' refuses them (store_unavailable, retry after 1-5 s). A warning and mcp_oxp_bridge_limit_store_failures_total say so in each case.",
        },
        replicas: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          description:
            "How many replicas share the limits, for 'share' before any replica has been seen in Redis (each replica announces itself there every 5 s and counts the others; once seen, that count is used).",
        },
        commandTimeoutMs: ms(
          'Longest wait for Redis on a call; slower counts as unavailable, so a slow or frozen Redis never holds a call longer.',
          250,
          10,
          10_000,
        ),
        connectTimeoutMs: ms('TCP (and TLS) connect timeout; reconnects follow with backoff up to 2 s.', 2_000, 100, 60_000),
        leaseSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86_400,
          default: 300,
          description:
            'Longest time an in-flight slot stays taken without its release (a replica that died mid-call): set it to the longest call, e.g. upstream.callTimeoutMs.',
        },
      },
    },
  },
} as const;

/** The validated `store` section (defaults applied). */
export type StoreSettings = FromSchema<typeof STORE_SCHEMA>;

/** The validated `store.redis` section. */
export type RedisStoreSettings = NonNullable<StoreSettings['redis']>;
