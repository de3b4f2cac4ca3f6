/**
 * The settings of one forward upstream, as the configuration makes them (config/upstreams.ts, config/grants.ts)
 * and the parts that run it take them (forward/bridge/upstream.ts, forward/client/): plain values, defined here so
 * types flow from the configuration outwards.
 */
import type { ToolPolicy } from '../core/merge.js';
import type { RetryPolicy } from '../core/retry-policy.js';
import type { TokenExchangeSettings } from '../core/token-exchange.js';
import type { TaskSupport, ToolSettingsEntry } from '../core/tool-settings.js';

/** The upstream's own credentials (OXP security pages): none, an API key header, a static bearer token, or an HS256 JWT minted per call. */
export type UpstreamAuth =
  | { kind: 'none' }
  | { kind: 'api_key'; key: string; header: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'jwt'; secret: string; audience?: string; ttlSeconds: number; issuer: string };

export interface OxpClientLimits {
  connectTimeoutMs: number;
  /** Deadline for a whole tools/call exchange (headers and body). */
  callTimeoutMs: number;
  /** Deadline for GET /tools and each authorization check_url poll. */
  listTimeoutMs: number;
  maxResponseBytes: number;
  maxTools: number;
  /** Keep-alive sockets per upstream origin. */
  connections: number;
}

export type ValueSource = { env: string } | { file: string };

export interface RequirementsConfig {
  userId?: string;
  secrets: Record<string, ValueSource>;
  authorization: Record<string, ValueSource>;
  authorizationHeaderPrefix: string;
}

/**
 * One upstream's view of the requirement values (config/grants.ts): the
 * sources it may read, and, when it shares the bridge with other upstreams,
 * which `OXP_SECRET_<ID>` variables and which providers' per-user tokens it
 * may receive. Without `granted`, every one (the only upstream).
 */
export interface BoundRequirements extends RequirementsConfig {
  granted?: {
    /** Secret ids, exactly as tools declare them. */
    secrets: readonly string[];
    /** Provider ids, lower-cased. */
    authorization: readonly string[];
  };
}

export interface UpstreamSettings {
  name: string;
  /** What the upstream is where its name and URL do not say (the embedded demo toolkit on a random loopback port): the console, /readyz and doctor show it. */
  label?: string;
  url: string;
  auth: UpstreamAuth;
  limits: OxpClientLimits;
  retry: RetryPolicy;
  circuit: { failureThreshold: number; openSeconds: number };
  requirements: BoundRequirements;
  /** Origins besides `url`'s own where an authorization check_url may be polled (normalised). */
  authorizationCheckOrigins: string[];
  refreshMs: number;
  prefix?: string;
  policy: ToolPolicy;
  userAgent: string;
  /** Per-user credentials by token exchange (RFC 8693), client secret read; absent when not configured. */
  tokenExchange?: TokenExchangeSettings;
  /** Whether this upstream's tools may run as MCP tasks, and the deadline of a task's OXP call (limits.callTimeoutMs is a plain call's). */
  tasks: { taskSupport: TaskSupport; taskCallTimeoutMs: number };
  /** Per-tool overrides of taskSupport and the two deadlines (core/tool-settings.ts). */
  toolSettings: readonly ToolSettingsEntry[];
}
