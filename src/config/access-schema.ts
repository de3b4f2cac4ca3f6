/**
 * The configuration of who is who and who may call what: named static
 * tokens and API keys (`NAMED_SECRETS`), how OAuth claims name a principal
 * (`OAUTH_CLAIMS`), who an unauthenticated caller is (`ANONYMOUS`), and the
 * access policy (`ACCESS_SCHEMA`, evaluated by core/access-policy.ts).
 */

const GLOBS = (what: string) =>
  ({
    type: 'array',
    maxItems: 256,
    items: { type: 'string', minLength: 1, maxLength: 256 },
    description: `${what} (globs: * matches any run of characters).`,
  }) as const;

const NAME = { type: 'string', pattern: '^[A-Za-z0-9_.@:-]{1,64}$' } as const;
const GROUPS = {
  type: 'array',
  maxItems: 64,
  items: { type: 'string', minLength: 1, maxLength: 128 },
  description: 'Groups the principal is in (matched by access rules).',
} as const;

/** A static token or key (`$defs.namedSecret`): a plain value (an anonymous principal named by its hash), or a named principal with groups. */
export const NAMED_SECRET = {
  oneOf: [
    { type: 'string', minLength: 16 },
    {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'value'],
      properties: {
        name: { ...NAME, description: `The principal's name (logs, metrics, the audit trail, the console, OXP user_id).` },
        value: { $ref: '#/$defs/valueSource', description: 'Where the secret is read ({env} or {file}; at least 16 characters).' },
        groups: GROUPS,
      },
    },
  ],
} as const;

/** A list of static tokens or keys. */
export const NAMED_SECRETS = { type: 'array', items: { $ref: '#/$defs/namedSecret' } } as const;

export const OAUTH_CLAIMS = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Which claims of a verified access token name the principal and its groups (dotted paths reach nested claims, e.g. realm_access.roles).',
  properties: {
    user: { type: 'string', minLength: 1, maxLength: 128, default: 'sub', description: "The claim whose value is the principal's name and OXP user_id." },
    groups: {
      type: 'array',
      maxItems: 16,
      default: [],
      items: { type: 'string', minLength: 1, maxLength: 128 },
      description: 'Claims holding the groups or roles (an array of strings, or one space-separated string); none by default.',
    },
  },
} as const;

export const ANONYMOUS = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Who a caller is when nobody authenticated (stdio, or an endpoint without authentication): what access rules match.',
  properties: {
    name: { ...NAME, default: 'anonymous' },
    groups: { ...GROUPS, default: [] },
  },
} as const;

const RULE = {
  type: 'object',
  additionalProperties: false,
  required: ['effect'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$', description: 'Names the rule in the audit trail and logs (else its position).' },
    effect: { enum: ['allow', 'deny'] },
    principals: {
      type: 'object',
      additionalProperties: false,
      description: 'Who the rule is for: all given conditions must hold, any value of one condition will do; absent = everybody.',
      properties: {
        names: GLOBS('Principal names'),
        groups: { type: 'array', maxItems: 256, items: { type: 'string', minLength: 1 }, description: 'Any of these groups.' },
        scopes: { type: 'array', maxItems: 256, items: { type: 'string', minLength: 1 }, description: 'Any of these OAuth scopes.' },
        kinds: { type: 'array', items: { enum: ['token', 'oauth', 'api-key', 'jwt', 'anonymous'] }, description: 'How the principal authenticated.' },
        claims: {
          type: 'object',
          maxProperties: 32,
          additionalProperties: { type: 'array', maxItems: 256, items: { type: 'string' } },
          description: 'OAuth claim → accepted values (a claim that is an array matches when any element is accepted).',
        },
      },
    },
    tools: {
      type: 'object',
      additionalProperties: false,
      description: 'Which tools: all given conditions must hold; absent = every tool.',
      properties: {
        names: GLOBS('MCP tool names'),
        oxpIds: GLOBS('OXP tool ids, without version (Toolkit.Tool)'),
        upstreams: GLOBS('Upstream names (oxp-server: toolkits)'),
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: 'Only on allow rules: calls this rule lets through are limited (429-like refusal when exceeded).',
      properties: {
        requestsPerMinute: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Sustained calls per minute (0 = no rate limit).' },
        burst: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000,
          description: 'Calls at once above the sustained rate (default: ten seconds of it, requestsPerMinute / 6 rounded up, at least 1).',
        },
        maxInFlight: { type: 'integer', minimum: 0, maximum: 100_000, description: 'Calls running at once (0 = no cap).' },
        per: { enum: ['principal', 'tool', 'principal-tool'], description: 'One counter per principal (default), per tool, or per principal and tool.' },
      },
    },
  },
} as const;

export const ACCESS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Who may see and call which tool (both commands). First matching rule decides; none matching: default. Hot-reloaded.',
  properties: {
    default: { enum: ['allow', 'deny'], default: 'allow', description: 'When no rule matches (allow: every authenticated caller sees every tool).' },
    maxInFlightPerPrincipal: {
      type: 'integer',
      minimum: 0,
      maximum: 100_000,
      description:
        "Each principal's tool calls running at once, every tool together, tasks included until they end (0 = no cap); counted in store.redis when set.",
    },
    rules: { type: 'array', maxItems: 1000, default: [], items: RULE },
  },
} as const;
