/**
 * What each MCP protocol revision allows a tools-only server to emit.
 *
 * Invariant: this table is the single source of truth for version gating.
 * Revisions are ISO dates, so "introduced in X" is a plain string
 * comparison (`version >= X`). Sources: the MCP specification's per-revision
 * changelogs and the official per-revision schema.json files (test/schemas).
 */

export const MCP_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpVersion = (typeof MCP_VERSIONS)[number];

export const MODERN_VERSION: McpVersion = '2026-07-28';
/**
 * Stateless legacy HTTP requests without an `MCP-Protocol-Version` header:
 * the transport spec says the server SHOULD assume 2025-03-26.
 */
export const HEADERLESS_LEGACY_VERSION: McpVersion = '2025-03-26';

/** First revision in which each field / behaviour exists. */
const INTRODUCED = {
  toolAnnotations: '2025-03-26',
  audioContent: '2025-03-26',
  progressMessage: '2025-03-26',
  toolTitle: '2025-06-18',
  outputSchema: '2025-06-18',
  structuredContent: '2025-06-18',
  toolMeta: '2025-06-18',
  contentMeta: '2025-06-18',
  resourceLink: '2025-06-18',
  lastModifiedAnnotation: '2025-06-18',
  toolIcons: '2025-11-25',
  /** `icons` on a `resource_link` block (ResourceLink gained Icons with tools). */
  linkIcons: '2025-11-25',
  urlElicitationError: '2025-11-25',
  /** Non-object `outputSchema` roots and `structuredContent` values (SEP-2106). */
  anyStructuredRoot: '2026-07-28',
  resultType: '2026-07-28',
  cacheFields: '2026-07-28',
  inputRequired: '2026-07-28',
} as const satisfies Record<string, McpVersion>;

export type VersionFeature = keyof typeof INTRODUCED;

/**
 * How a revision does tasks: `core` (2025-11-25: the `tasks` capability, `execution.taskSupport`, a `task` parameter
 * on tools/call, tasks/get|result|list|cancel), `extension` (2026-07-28: `io.modelcontextprotocol/tasks`, the server
 * decides, tasks/get|update|cancel), or `none`. Not a "since" feature: 2026-07-28 removed the core form.
 */
export type TaskFlavour = 'core' | 'extension' | 'none';

export interface VersionProfile {
  readonly version: McpVersion;
  readonly modern: boolean;
  readonly has: Readonly<Record<VersionFeature, boolean>>;
  readonly tasks: TaskFlavour;
}

export function taskFlavourOf(version: McpVersion): TaskFlavour {
  return version === '2025-11-25' ? 'core' : version >= MODERN_VERSION ? 'extension' : 'none';
}

const profiles = new Map<McpVersion, VersionProfile>();

/** Memoised, frozen profile of one revision. */
export function profileFor(version: McpVersion): VersionProfile {
  let profile = profiles.get(version);
  if (!profile) {
    const has = {} as Record<VersionFeature, boolean>;
    for (const [feature, since] of Object.entries(INTRODUCED)) has[feature as VersionFeature] = version >= since;
    profile = Object.freeze({ version, modern: version >= MODERN_VERSION, has: Object.freeze(has), tasks: taskFlavourOf(version) });
    profiles.set(version, profile);
  }
  return profile;
}

export function isMcpVersion(value: unknown): value is McpVersion {
  return typeof value === 'string' && (MCP_VERSIONS as readonly string[]).includes(value);
}

/**
 * Maps a version string a peer claimed to the revision whose rules apply.
 * An unknown legacy-looking date (e.g. 2024-10-07, an old pre-release) gets
 * the newest known revision not after it, so the peer never receives fields
 * newer than what it asked for; anything older than the oldest gets the oldest.
 */
export function effectiveVersion(claimed: string): McpVersion {
  if (isMcpVersion(claimed)) return claimed;
  let best: McpVersion = MCP_VERSIONS[0];
  for (const v of MCP_VERSIONS) if (v <= claimed && v !== MODERN_VERSION) best = v;
  return best;
}
