/** Configuration keys shared by every listening HTTP server (part of CONFIG_SCHEMA, schema.ts). */
const ms = (description: string, def: number, min: number, max: number) =>
  ({ type: 'integer', minimum: min, maximum: max, default: def, description }) as const;

/** Bounds of a listening HTTP server (the MCP face's `http` section, the oxp-server's `oxpServer` section); see src/platform/net/server-limits.ts. */
export const SERVER_LIMITS = {
  headersTimeoutMs: ms('From a connection opening (or a request starting) to the end of its headers; slower clients are disconnected.', 15_000, 1_000, 600_000),
  requestTimeoutMs: ms('From a request starting to the end of its body (408 after); a long answer streamed afterwards is not cut.', 60_000, 1_000, 3_600_000),
  maxConnections: {
    type: 'integer',
    minimum: 1,
    maximum: 1_000_000,
    description:
      "Open connections at once; further ones are closed on arrival. Default: half the process's open-files limit, between 256 and 16384 (1024 where the limit cannot be read).",
  },
} as const;
