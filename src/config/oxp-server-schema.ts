/**
 * The `oxpServer` section of the configuration: the `oxp-server` subcommand
 * (OXP clients → bridge → MCP servers). Part of CONFIG_SCHEMA (schema.ts).
 */
import { NAMED_SECRETS } from './access-schema.js';
import { SERVER_LIMITS } from './server-limits-schema.js';

const requirements = {
  type: 'object',
  additionalProperties: false,
  description:
    'OXP requirements declared for the tools; OXP clients must then send the matching context, which reaches the MCP server in _meta["mcp-oxp-bridge/oxp-context"].',
  properties: {
    authorization: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id: { type: 'string', minLength: 1 },
          oauth2: { type: 'object', additionalProperties: false, properties: { scopes: { type: 'array', items: { type: 'string' } } } },
        },
      },
    },
    secrets: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', minLength: 1 } } } },
    user_id: { type: 'boolean' },
  },
} as const;

const version = { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

export const OXP_SERVER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'The oxp-server subcommand: serves the tools of MCP servers to OXP 1.0 clients.',
  properties: {
    enabled: { type: 'boolean', default: false, description: 'Start the oxp-server instead of the MCP bridge when the command line names no subcommand.' },
    host: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'OXP HTTP listen address.' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8090, description: 'OXP HTTP listen port (0 = any free port).' },
    upstreams: {
      type: 'array',
      default: [],
      description: 'The MCP servers whose tools are served, each with a toolkit name.',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          toolkit: { type: 'string', pattern: '^[A-Za-z0-9_]{1,32}$', description: "The Toolkit part of the OXP ids. Default: the server's name, sanitised." },
          url: { type: 'string', pattern: '^https?://[^\\s]+$', description: 'A remote MCP server (Streamable HTTP, or legacy HTTP+SSE).' },
          transport: { enum: ['auto', 'streamable-http', 'sse'], description: 'For url: auto (default) tries Streamable HTTP, then HTTP+SSE.' },
          headers: { ...stringMap, description: 'For url: extra HTTP headers (e.g. credentials the MCP server needs).' },
          command: {
            type: 'string',
            minLength: 1,
            description: 'A local MCP server run as a child process over stdio: the executable, or a whole command line when args is absent.',
          },
          args: { type: 'array', items: { type: 'string' }, description: 'For command: its arguments.' },
          env: { ...stringMap, description: "For command: environment variables added to the SDK's safe default set." },
          cwd: { type: 'string', minLength: 1, description: 'For command: working directory.' },
          version: { ...version, description: "Version of every tool. Default: the server's version when it is semver, else 1.0.0." },
          requirements,
          tools: {
            type: 'object',
            description:
              "Which tools to publish and how (allow, deny, rename, descriptions, as for the MCP direction's upstreams), and per MCP tool name its version and requirements overriding the upstream's.",
            properties: {
              allow: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Glob patterns (*) over MCP tool names; empty = all.' },
              deny: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Glob patterns (*) over MCP tool names, applied after allow.' },
              rename: {
                type: 'object',
                additionalProperties: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
                description: "MCP tool name → published name (the OXP name; the id's Tool part with - as _).",
              },
              descriptions: {
                type: 'object',
                additionalProperties: { type: 'string', minLength: 1 },
                description: 'MCP tool name → description shown to OXP clients.',
              },
            },
            additionalProperties: { type: 'object', additionalProperties: false, properties: { version, requirements } },
          },
        },
        // Exactly one of url and command.
        oneOf: [
          { properties: { url: true }, required: ['url'] },
          { properties: { command: true }, required: ['command'] },
        ],
      },
    },
    apiKeys: {
      ...NAMED_SECRETS,
      description: 'Accepted OXP-API-Key values: plain (prefer OXP_SERVER_API_KEYS), or {name, value: {env|file}, groups} for a named principal.',
    },
    jwtSecret: { type: 'string', minLength: 16, description: 'HS256 secret of accepted JWT bearer tokens (prefer OXP_SERVER_JWT_SECRET).' },
    jwtAudiences: {
      type: 'array',
      default: [],
      items: { type: 'string', minLength: 1 },
      description: 'Allowed clients: a JWT that carries aud must name one of them.',
    },
    allowUnauthenticated: { type: 'boolean', default: false, description: 'Serve without authentication on a non-loopback address.' },
    connectTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 600_000,
      default: 15_000,
      description: 'Connecting to an MCP server (spawn or HTTP), version negotiation included.',
    },
    callTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000, default: 300_000, description: 'Deadline of one tool call.' },
    taskCallTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 86_400_000,
      default: 3_600_000,
      description:
        'Deadline of one call of a tool that requires MCP tasks (execution.taskSupport "required"), from the task-augmented tools/call to its result; the task is cancelled (tasks/cancel) when it passes.',
    },
    refreshSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description: 'Tool lists are re-read this often (list_changed notifications refresh at once); also how soon a silent HTTP upstream is noticed down.',
    },
    reconnectMaxMs: {
      type: 'integer',
      minimum: 100,
      maximum: 600_000,
      default: 30_000,
      description: 'Longest wait between reconnection attempts (exponential backoff from 500 ms).',
    },
    maxRequestBodyBytes: { type: 'integer', minimum: 1024, maximum: 104_857_600, default: 4_194_304, description: 'Largest OXP request body (413 above).' },
    maxValidators: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 2_000, description: 'Compiled input-schema validators kept (LRU).' },
    ...SERVER_LIMITS,
  },
} as const;
