/**
 * `upstream.tokenExchange` and `upstreams[].tokenExchange` (part of
 * CONFIG_SCHEMA, schema.ts): per-user credentials for one upstream by OAuth
 * 2.0 Token Exchange (RFC 8693). Resolved by upstreams.ts into the
 * upstream's TokenExchangeSettings; used by src/forward/client/token-exchanger.ts.
 */
export const TOKEN_EXCHANGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['tokenEndpoint', 'clientId', 'clientSecret', 'use'],
  description:
    "Exchange each OAuth caller's access token (RFC 8693) for a token meant for this upstream; needs auth.mode oauth. The caller's own token is never sent upstream.",
  properties: {
    tokenEndpoint: {
      type: 'string',
      pattern: '^https?://[^\\s]+$',
      description: "The authorization server's token endpoint: https, or http on a loopback host only.",
    },
    clientId: { type: 'string', minLength: 1, description: "The bridge's client id at that authorization server." },
    clientSecret: { $ref: '#/$defs/valueSource', description: 'Its client secret (sent with client_secret_basic).' },
    audience: { type: 'string', minLength: 1, description: 'RFC 8693 `audience`: the upstream as the authorization server names it.' },
    resource: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s#]+$', description: 'RFC 8693 / RFC 8707 `resource`: an absolute URI.' },
    scope: { type: 'string', pattern: '^[!#-\\[\\]-~]+( [!#-\\[\\]-~]+)*$', description: 'Scopes requested for the exchanged token, space-separated.' },
    timeoutMs: { type: 'integer', minimum: 100, maximum: 60_000, default: 5_000, description: 'Deadline for one exchange, connect included.' },
    use: {
      enum: ['bearer', 'authorization'],
      description:
        "`bearer`: the exchanged token is the upstream's `Authorization: Bearer` (instead of its static credentials); `authorization`: it is the OXP context.authorization token of `provider`.",
    },
    provider: { type: 'string', minLength: 1, description: 'The authorization provider id, with use: authorization.' },
    refreshSkewSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 3_600,
      default: 30,
      description: "A cached exchanged token is replaced this long before it, or the caller's token it came from, expires.",
    },
  },
  if: { properties: { use: { const: 'authorization' } }, required: ['use'] },
  // The property is repeated here only because ajv's strict mode wants each `required` name declared beside it.
  then: { properties: { provider: { type: 'string' } }, required: ['provider'] },
} as const;
