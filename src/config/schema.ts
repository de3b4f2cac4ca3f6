/**
 * The configuration's JSON Schema: the single definition of every key, its
 * type, bounds and default. config/config.schema.json is generated from it
 * (`npm run config:schema`; a test fails when the two differ).
 */
import { AUDIT_SCHEMA } from './audit-schema.js';
import { OXP_SERVER_SCHEMA } from './oxp-server-schema.js';
import { SERVER_LIMITS } from './server-limits-schema.js';
import { ACCESS_SCHEMA, ANONYMOUS, NAMED_SECRET, NAMED_SECRETS, OAUTH_CLAIMS } from './access-schema.js';
import { TOKEN_EXCHANGE_SCHEMA } from './token-exchange-schema.js';
import { STORE_SCHEMA } from './store-schema.js';
import { TASK_SUPPORT, TASKS_SCHEMA } from './tasks-schema.js';
import type { WithoutDefaults } from './from-schema.js';

const ms = (description: string, def: number, min: number, max: number) =>
  ({ type: 'integer', minimum: min, maximum: max, default: def, description }) as const;

/** Per-upstream tuning: in `upstream` with defaults, in each `upstreams[]` entry without (the entry inherits). */
const UPSTREAM_TUNING = {
  jwtAudience: { type: 'string', minLength: 1, description: '`aud` claim of minted JWTs.' },
  jwtTtlSeconds: { type: 'integer', minimum: 30, maximum: 900, default: 300, description: 'Lifetime of minted JWTs (the OXP spec caps it at 15 minutes).' },
  connectTimeoutMs: ms('Connect timeout.', 10_000, 100, 120_000),
  callTimeoutMs: ms('Deadline for a whole tool call.', 300_000, 100, 3_600_000),
  listTimeoutMs: ms('Deadline for GET /tools.', 30_000, 100, 600_000),
  maxResponseBytes: { type: 'integer', minimum: 1024, maximum: 1_073_741_824, default: 16_777_216, description: 'Largest upstream response accepted.' },
  maxTools: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 50_000, description: 'Largest tool list accepted.' },
  connections: { type: 'integer', minimum: 1, maximum: 4096, default: 128, description: 'Keep-alive connections to the upstream.' },
  retry: {
    type: 'object',
    additionalProperties: false,
    default: {},
    description: 'Retries of transient failures (connect errors before sending; 408/429/502/503/504), always with the same call_id.',
    properties: {
      maxAttempts: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'Attempts in all (1 = never retry).' },
      baseDelayMs: ms('First backoff step (exponential, full jitter).', 200, 0, 60_000),
      maxDelayMs: ms('Longest backoff step.', 5_000, 0, 300_000),
      maxRetryAfterMs: ms('Longest server-requested wait (Retry-After, retry_after_ms) honoured; longer ones are not retried.', 10_000, 0, 300_000),
      retryToolErrors: { type: 'boolean', default: false, description: 'Also retry tool errors that say can_retry.' },
    },
  },
  circuit: {
    type: 'object',
    additionalProperties: false,
    default: {},
    description: 'Circuit breaker: opens on consecutive transport failures (never on tool errors).',
    properties: {
      failureThreshold: { type: 'integer', minimum: 1, maximum: 1000, default: 5, description: 'Consecutive transport failures that open the circuit.' },
      openSeconds: { type: 'integer', minimum: 1, maximum: 3600, default: 30, description: 'How long calls are refused before one trial call.' },
    },
  },
  taskSupport: { ...TASK_SUPPORT, default: 'optional' },
  taskCallTimeoutMs: ms("Deadline for a task's OXP call (a task outlives its request: longer than callTimeoutMs).", 3_600_000, 100, 86_400_000),
  toolSettings: {
    type: 'array',
    maxItems: 256,
    default: [],
    description:
      "Per-tool settings over this upstream's: for each setting, the first entry whose `tools` match the tool (its MCP name or OXP id, without version) and that sets it decides.",
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['tools'],
      properties: {
        tools: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 256 }, description: 'Glob patterns (*).' },
        taskSupport: TASK_SUPPORT,
        callTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000, description: "Deadline for this tool's calls." },
        taskCallTimeoutMs: { type: 'integer', minimum: 100, maximum: 86_400_000, description: "Deadline for this tool's calls run as tasks." },
      },
    },
  },
} as const;

/** Where an authorization check_url may be polled besides the upstream's own origin (configuration is trusted, upstream challenges are not). */
const CHECK_ORIGINS = {
  type: 'array',
  maxItems: 64,
  items: { type: 'string', pattern: '^https?://[^\\s/?#]+$' },
  description:
    "Origins (scheme://host[:port]) besides the upstream's own where the bridge may poll an authorization check_url: https, or http on a loopback host.",
} as const;

/** The schema without `default`s (at any depth): for keys whose absence means "inherit". */
function withoutDefaults<T>(schema: T): WithoutDefaults<T> {
  if (Array.isArray(schema)) return schema.map(withoutDefaults) as WithoutDefaults<T>;
  if (typeof schema !== 'object' || schema === null) return schema as WithoutDefaults<T>;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== 'default')
      .map(([k, v]) => [k, withoutDefaults(v)]),
  ) as WithoutDefaults<T>;
}

export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://github.com/mcp-oxp-bridge/config.schema.json',
  title: 'mcp-oxp-bridge configuration',
  type: 'object',
  additionalProperties: false,
  $defs: {
    // Used more than once: one validator function each (inlineRefs off in scripts/generate-validators.ts).
    tokenExchange: TOKEN_EXCHANGE_SCHEMA,
    namedSecret: NAMED_SECRET,
    valueSource: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['env'],
          properties: { env: { type: 'string', minLength: 1, description: 'Environment variable holding the value.' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['file'],
          properties: { file: { type: 'string', minLength: 1, description: 'File holding the value (e.g. a mounted Kubernetes secret).' } },
        },
      ],
    },
  },
  properties: {
    transport: { enum: ['http', 'stdio'], default: 'http', description: 'How MCP clients reach the bridge.' },
    host: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'HTTP listen address.' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080, description: 'HTTP listen port (0 = any free port).' },
    logLevel: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', description: 'Log level (logs go to stderr).' },
    upstream: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The OXP tool server. Without `url`, the embedded demo toolkit is served.',
      properties: {
        url: { type: 'string', pattern: '^https?://[^\\s]+$', description: 'Base URL of the OXP server (the one serving /tools and /tools/call).' },
        apiKey: { type: 'string', minLength: 1, description: 'Sent in the `apiKeyHeader` header.' },
        apiKeyHeader: { type: 'string', pattern: '^[A-Za-z0-9-]+$', default: 'OXP-API-Key', description: 'Header carrying `apiKey`.' },
        bearerToken: { type: 'string', minLength: 1, description: 'Static bearer token sent as `Authorization: Bearer`.' },
        jwtSecret: { type: 'string', minLength: 16, description: 'HS256 secret: the bridge mints short-lived JWTs with it.' },
        authorizationPollMs: ms('How often a call resumed after URL authorization polls the challenge check_url.', 1_000, 50, 60_000),
        authorizationWaitSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 3600,
          default: 120,
          description: 'How long a resumed call waits for check_url to report completion.',
        },
        authorizationCheckOrigins: { ...CHECK_ORIGINS, default: [] },
        ...UPSTREAM_TUNING,
        progressIntervalMs: ms('While a call runs, progress notifications are sent this often to clients that sent a progressToken.', 10_000, 100, 600_000),
        tokenExchange: { $ref: '#/$defs/tokenExchange' },
      },
    },
    upstreams: {
      type: 'array',
      maxItems: 64,
      description: 'Several OXP servers (instead of `upstream.url`). Each inherits the `upstream` section for what it does not set.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'url'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$', description: 'Unique; used in metrics, logs and as the collision prefix.' },
          url: { type: 'string', pattern: '^https?://[^\\s]+$' },
          prefix: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$', description: "Always prefix this upstream's tools with `<prefix>_`." },
          apiKey: { $ref: '#/$defs/valueSource' },
          apiKeyHeader: { type: 'string', pattern: '^[A-Za-z0-9-]+$' },
          bearerToken: { $ref: '#/$defs/valueSource' },
          jwtSecret: { $ref: '#/$defs/valueSource' },
          // Same keys and bounds as the `upstream` section, whose values (defaults included) fill what an entry leaves out.
          ...withoutDefaults(UPSTREAM_TUNING),
          secrets: {
            type: 'object',
            additionalProperties: { $ref: '#/$defs/valueSource' },
            description: 'Tool secrets for this upstream only (override requirements.secrets).',
          },
          authorizationCheckOrigins: CHECK_ORIGINS,
          // Not inherited from the `upstream` section: a token exchanged for one upstream's audience reaches that upstream only.
          tokenExchange: { $ref: '#/$defs/tokenExchange' },
          grants: {
            type: 'object',
            additionalProperties: false,
            description:
              'The global requirement values this upstream may receive. With several upstreams (or when set), a global secret (requirements.secrets or OXP_SECRET_<ID>) or a per-user / configured authorization token reaches an upstream only when granted here.',
            properties: {
              secrets: { type: 'array', maxItems: 256, items: { type: 'string', minLength: 1 }, description: 'Secret ids, as the tools declare them.' },
              authorization: { type: 'array', maxItems: 256, items: { type: 'string', minLength: 1 }, description: 'Authorization provider ids (any case).' },
            },
          },
          tools: {
            type: 'object',
            additionalProperties: false,
            description: 'Which tools to publish and how. Keys are the tool names this upstream would have on its own.',
            properties: {
              allow: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Glob patterns (*) over names or OXP ids; empty = all.' },
              deny: { type: 'array', items: { type: 'string', minLength: 1 } },
              rename: { type: 'object', additionalProperties: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
              descriptions: { type: 'object', additionalProperties: { type: 'string' } },
              fixedArguments: { type: 'object', additionalProperties: { type: 'object' }, description: 'Arguments set on every call, hidden from clients.' },
            },
          },
        },
      },
    },
    catalog: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        refreshSeconds: { type: 'integer', minimum: 1, maximum: 86_400, default: 300, description: 'How often the tool list is re-fetched.' },
        pageSize: { type: 'integer', minimum: 1, maximum: 10_000, default: 500, description: 'Tools per tools/list page.' },
        maxValidators: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000,
          default: 2_000,
          description: 'Compiled input-schema validators kept in memory (LRU); validators compile on first call.',
        },
      },
    },
    auth: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Who may use the MCP HTTP endpoint. Without tokens or OAuth, only loopback binding is allowed.',
      properties: {
        mode: { enum: ['none', 'bearer', 'oauth'], description: 'Default: bearer when tokens are set, oauth when auth.oauth is set, else none.' },
        tokens: {
          ...NAMED_SECRETS,
          description: 'Static bearer tokens: plain (prefer MCP_AUTH_TOKENS or tokensFile), or {name, value: {env|file}, groups} for a named principal.',
        },
        tokensFile: { type: 'string', minLength: 1, description: 'File with one token per line (e.g. a mounted Kubernetes secret).' },
        oauth: {
          type: 'object',
          additionalProperties: false,
          required: ['issuer', 'audience', 'jwksUrl'],
          description: 'OAuth 2.1 resource server: JWT access tokens verified against the issuer JWKS.',
          properties: {
            issuer: { type: 'string', minLength: 1 },
            audience: { type: 'string', minLength: 1 },
            jwksUrl: { type: 'string', pattern: '^https?://' },
            resourceUrl: {
              type: 'string',
              pattern: '^https?://',
              description:
                'Public URL of this MCP endpoint, e.g. https://mcp.example.com/mcp (required: the protected resource named in the metadata and challenges).',
            },
            requiredScopes: { type: 'array', items: { type: 'string', minLength: 1 } },
            claims: OAUTH_CLAIMS,
          },
        },
        anonymous: ANONYMOUS,
        allowUnauthenticated: {
          type: 'boolean',
          default: false,
          description: 'Serve without auth on a non-loopback address (only behind something else that authenticates).',
        },
      },
    },
    requirements: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Values for OXP tool requirements; each is sent only to tools that declare it.',
      properties: {
        userId: { type: 'string', minLength: 1, description: 'OXP user_id when no authenticated MCP principal supplies one.' },
        secrets: {
          type: 'object',
          default: {},
          description:
            'Secret id → source. Secrets not listed come from the environment variable OXP_SECRET_<ID>. With several upstreams, each reaches only the upstreams whose grants.secrets name it.',
          additionalProperties: { $ref: '#/$defs/valueSource' },
        },
        authorization: {
          type: 'object',
          default: {},
          description:
            'Authorization provider id → token source (for stdio, or shared tokens); per-user HTTP headers take precedence. With several upstreams, both reach only the upstreams whose grants.authorization name the provider.',
          additionalProperties: { $ref: '#/$defs/valueSource' },
        },
        authorizationHeaderPrefix: {
          type: 'string',
          pattern: '^[A-Za-z0-9-]+$',
          default: 'X-OXP-Authorization-',
          description: 'HTTP header prefix carrying per-user tokens: <prefix><provider-id>: <token>.',
        },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxRequestBodyBytes: { type: 'integer', minimum: 1024, maximum: 104_857_600, default: 4_194_304, description: 'Largest MCP request body (413 above).' },
        allowedHosts: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'Accepted Host header names (403 otherwise). Default: localhost names when bound to loopback, any otherwise.',
        },
        allowedOrigins: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'Accepted Origin host names (403 otherwise); requests without Origin pass. Default: localhost.',
        },
        sessionSecret: {
          type: 'string',
          minLength: 16,
          description: 'Key that signs legacy session ids; share it between replicas. Default: random per process.',
        },
        sessionTtlSeconds: { type: 'integer', minimum: 60, maximum: 2_592_000, default: 86_400, description: 'Lifetime of a legacy session id.' },
        keepAliveMs: ms('SSE keep-alive comment interval (0 = off).', 15_000, 0, 600_000),
        maxJsonDepth: {
          type: 'integer',
          minimum: 4,
          maximum: 1000,
          default: 64,
          description: 'Deepest object/array nesting accepted in an MCP request body (400 above).',
        },
        limits: {
          type: 'object',
          additionalProperties: false,
          default: {},
          description: 'Per-client admission (client = authenticated subject, else address); 429 with Retry-After when exceeded.',
          properties: {
            requestsPerMinute: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0, description: 'Sustained rate per client (0 = unlimited).' },
            burst: {
              type: 'integer',
              minimum: 0,
              maximum: 1_000_000,
              default: 60,
              description: 'Requests a client may send at once above the sustained rate.',
            },
            maxInFlight: { type: 'integer', minimum: 0, maximum: 100_000, default: 0, description: 'Concurrent requests per client (0 = unlimited).' },
          },
        },
        shutdownGraceSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 3600,
          default: 25,
          description:
            'On SIGTERM/SIGINT: how long the stop may take, from the signal to the exit (the drain delay, then the requests still running finishing).',
        },
        drainDelaySeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 3600,
          description:
            'On SIGTERM: how long new requests are still served after readiness turns 503, while load balancers remove the endpoint; part of shutdownGraceSeconds (both commands). Default: 5 in Kubernetes (KUBERNETES_SERVICE_HOST set) and 1 elsewhere on a listen address beyond loopback, 0 on loopback and stdio.',
        },
        ...SERVER_LIMITS,
        maxBatchSize: {
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: 100,
          description: 'Most messages in one JSON-RPC batch (2025-03-26); a larger batch is refused with 400. Each message counts against http.limits.',
        },
        metricsToken: {
          type: 'string',
          minLength: 16,
          description: 'When set, GET /metrics needs "Authorization: Bearer <token>" (prefer MCP_METRICS_TOKEN or metricsTokenFile).',
        },
        metricsTokenFile: { type: 'string', minLength: 1, description: 'File holding the /metrics token (e.g. a mounted Kubernetes secret).' },
        fastPath: {
          type: 'boolean',
          deprecated: true,
          description:
            'Deprecated and ignored (a warning is logged): every MCP request goes through one pipeline, which answers plain tools/call and tools/list itself.',
        },
      },
    },
    access: ACCESS_SCHEMA,
    oxpServer: OXP_SERVER_SCHEMA,
    store: STORE_SCHEMA,
    tasks: TASKS_SCHEMA,
    audit: AUDIT_SCHEMA,
    console: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The operator console at /console (both commands): same authentication and Host/Origin rules as the endpoint it serves beside.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Serve the console and its JSON API at /console.' },
        showArguments: {
          type: 'boolean',
          default: false,
          description:
            "Show call arguments and results in the console's call list (credential-like keys and developer_message still redacted, each cut at 4096 characters). Off: only their shape (keys and types).",
        },
        recentCalls: { type: 'integer', minimum: 1, maximum: 10_000, default: 100, description: 'Calls the console keeps for its list of recent calls.' },
      },
    },
  },
} as const;
