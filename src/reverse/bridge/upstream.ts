/**
 * One configured MCP server as the oxp-server keeps it: what it lists under
 * (toolkit, version, requirements, policy from the settings), its
 * connection state and its last tools. The record the other modules of this
 * folder share; built once per configured upstream.
 */
import type { UpstreamListing } from '../../core/mcp-to-oxp.js';
import type { McpTool } from '../../core/mcp-wire.js';
import { decodeRequirements } from '../../core/oxp-decode.js';
import type { McpConnection, McpTarget } from '../client/mcp-client-sdk.js';
import { perToolSettings, policyOf, targetOf, upstreamLabel, type UpstreamConfig } from '../../config/oxp-server-settings.js';

/** `connecting`: first attempt under way; `connected`; `reconnecting`: lost or failed, retried with backoff. */
export type UpstreamState = 'connecting' | 'connected' | 'reconnecting';

export interface UpstreamStatus {
  label: string;
  state: UpstreamState;
  connected: boolean;
  era?: 'legacy' | 'modern';
  protocolVersion?: string;
  transport?: string;
  tools: number;
  lastError?: string;
  /** When the server's tools were last read (ms since epoch). */
  listedAt?: number;
}

export interface Upstream {
  index: number;
  /**
   * What the logs, /health's neighbours and the start line call it: its toolkit as its tools have it (the one the
   * operator gave, else its server's own name once it has answered: upstream-catalog.ts names it), and until then
   * `location`.
   */
  label: string;
  /** Where it is (a URL without credentials, or the command without its arguments): its name before its server answers. */
  location: string;
  config: UpstreamConfig;
  target: McpTarget;
  listing: Omit<UpstreamListing, 'tools'>;
  connection?: McpConnection;
  connecting?: Promise<McpConnection | undefined>;
  tools?: readonly McpTool[];
  /** `name: reason` of the tools last left out, so each is logged once, not on every refresh. */
  dropped?: ReadonlySet<string>;
  failures: number;
  lastAttempt: number;
  lastError?: string;
  retry?: NodeJS.Timeout;
  /** When the scheduled reconnection runs (ms since epoch). */
  retryAt?: number;
  /** When a failed attempt was last said at warn (ms since epoch): the others go to debug (upstream-connections.ts). */
  warnedAt?: number;
  refreshing?: boolean;
  /** The first connection attempt has ended (either way). */
  attempted?: boolean;
  /** Tool policy keys that named no listed tool at the last listing (each logged once: upstream-catalog.ts). */
  unmatchedKeys?: ReadonlySet<string>;
  /** Tools already reported as not published (logged once each). */
  unpublished: Set<string>;
  listedAt?: number;
}

/** The record of the upstream configured at `index`, not connected yet. */
export function upstreamOf(config: UpstreamConfig, index: number): Upstream {
  const requirements = decodeRequirements(config.requirements);
  const settings = perToolSettings(config);
  const policy = policyOf(config);
  const perTool = settings.length
    ? Object.fromEntries(
        settings.map(([name, t]) => {
          const toolRequirements = decodeRequirements(t.requirements);
          return [name, { ...(t.version ? { version: t.version } : {}), ...(toolRequirements ? { requirements: toolRequirements } : {}) }];
        }),
      )
    : undefined;
  const listing: Omit<UpstreamListing, 'tools'> = {
    upstream: index,
    ...(config.toolkit ? { toolkit: config.toolkit } : {}),
    ...(config.version ? { version: config.version } : {}),
    ...(requirements ? { requirements } : {}),
    ...(perTool ? { perTool } : {}),
    ...(policy ? { policy } : {}),
  };
  const location = upstreamLabel(config);
  return { index, label: location, location, config, target: targetOf(config), listing, failures: 0, lastAttempt: 0, unpublished: new Set<string>() };
}

export function stateOf(u: Upstream): UpstreamState {
  return u.connection ? 'connected' : u.attempted ? 'reconnecting' : 'connecting';
}

/** One upstream's state for the operator (console, tests); `/health` shows less (see UpstreamCatalog.health). */
export function statusOf(u: Upstream): UpstreamStatus {
  return {
    label: u.label,
    state: stateOf(u),
    connected: u.connection !== undefined,
    ...(u.connection ? { era: u.connection.era, transport: u.connection.transport } : {}),
    ...(u.connection?.protocolVersion ? { protocolVersion: u.connection.protocolVersion } : {}),
    tools: u.tools?.length ?? 0,
    ...(u.lastError ? { lastError: u.lastError } : {}),
    ...(u.listedAt ? { listedAt: u.listedAt } : {}),
  };
}
