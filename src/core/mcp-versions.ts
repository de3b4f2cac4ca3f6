/**
 * The MCP protocol revisions the bridge speaks, and what each one allows a tools-only server to emit.
 *
 * Invariant: this table is the single source of truth for revision gating. Every per-revision choice — fields,
 * the envelope and its headers (`era`), the tasks flavour, error shapes — is a property of the revision's profile
 * (`profileFor`); no other module compares revision strings (test/architecture/revisions.test.ts). Revisions are
 * ISO dates, so "introduced in X" is a plain string comparison (`revision >= X`), made here only. Sources: the MCP
 * specification's per-revision changelogs and the official per-revision schema.json files (test/schemas).
 *
 * A new revision is one row of REVISIONS (and a line of INTRODUCED for each field it adds); docs/design.md
 * ("A new MCP revision") says what else it takes outside src/: an SDK release that serves it, its schema.
 */

/**
 * How a revision carries a request (the SDK's words, its `ProtocolEra`): `legacy`, the 2025-era `initialize`
 * session (an `MCP-Protocol-Version` header from 2025-06-18 on); `modern`, the per-request `_meta` envelope with
 * the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) on every request, 2026-07-28 on.
 */
export type McpEra = 'legacy' | 'modern';

/**
 * How a revision does tasks: `core` (2025-11-25: the `tasks` capability, `execution.taskSupport`, a `task` parameter
 * on tools/call, tasks/get|result|list|cancel), `extension` (2026-07-28: `io.modelcontextprotocol/tasks`, the server
 * decides, tasks/get|update|cancel), or `none`. Not a "since" feature: 2026-07-28 removed the core form.
 */
export type TaskFlavour = 'core' | 'extension' | 'none';

/** Each revision, oldest first, with the choices that are not a field's "since". */
const REVISIONS = {
  '2024-11-05': { era: 'legacy', tasks: 'none' },
  '2025-03-26': { era: 'legacy', tasks: 'none' },
  '2025-06-18': { era: 'legacy', tasks: 'none' },
  '2025-11-25': { era: 'legacy', tasks: 'core' },
  '2026-07-28': { era: 'modern', tasks: 'extension' },
} as const satisfies Record<string, { era: McpEra; tasks: TaskFlavour }>;

export type McpRevision = keyof typeof REVISIONS;

const known = Object.keys(REVISIONS).sort() as McpRevision[];

/** Every revision, oldest first (a revision registered by registerRevisionForTest included). */
export const MCP_REVISIONS: readonly McpRevision[] = known;

/**
 * Stateless legacy HTTP requests without an `MCP-Protocol-Version` header:
 * the transport spec says the server SHOULD assume 2025-03-26.
 */
export const HEADERLESS_LEGACY_REVISION: McpRevision = '2025-03-26';

/**
 * The 2025-era revisions the server SDK accepts in a request (its SUPPORTED_PROTOCOL_VERSIONS, `2024-10-07`, which
 * the bridge projects as 2024-11-05, included): a copy for the edge, which classifies before the SDK is loaded, held
 * to the SDK by src/forward/face/mcp-server-sdk.test.ts.
 */
export const SDK_SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

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
  /** The `MCP-Protocol-Version` header on every request after `initialize`. */
  protocolVersionHeader: '2025-06-18',
  toolIcons: '2025-11-25',
  /** `icons` on a `resource_link` block (ResourceLink gained Icons with tools). */
  linkIcons: '2025-11-25',
  /** An error shape: -32042 asks the client to complete a URL-mode elicitation first. */
  urlElicitationError: '2025-11-25',
  /** Non-object `outputSchema` roots and `structuredContent` values (SEP-2106). */
  anyStructuredRoot: '2026-07-28',
  resultType: '2026-07-28',
  cacheFields: '2026-07-28',
  /** An error shape: an `input_required` result instead of -32042. */
  inputRequired: '2026-07-28',
} as const satisfies Record<string, McpRevision>;

export type RevisionFeature = keyof typeof INTRODUCED;

export interface RevisionProfile {
  readonly revision: McpRevision;
  readonly era: McpEra;
  readonly has: Readonly<Record<RevisionFeature, boolean>>;
  readonly tasks: TaskFlavour;
}

const profiles = new Map<McpRevision, RevisionProfile>();

/** Memoised, frozen profile of one revision. */
export function profileFor(revision: McpRevision): RevisionProfile {
  let profile = profiles.get(revision);
  if (!profile) {
    const has = {} as Record<RevisionFeature, boolean>;
    for (const [feature, since] of Object.entries(INTRODUCED)) has[feature as RevisionFeature] = revision >= since;
    const { era, tasks } = REVISIONS[revision];
    profile = Object.freeze({ revision, era, has: Object.freeze(has), tasks });
    profiles.set(revision, profile);
  }
  return profile;
}

export function isMcpRevision(value: unknown): value is McpRevision {
  return typeof value === 'string' && (MCP_REVISIONS as readonly string[]).includes(value);
}

/** The revisions of one era, oldest first. */
export function revisionsOfEra(era: McpEra): McpRevision[] {
  return known.filter((revision) => profileFor(revision).era === era);
}

/** The newest revision (the one the doctor's call and the bridge's own checks speak). */
export function newestRevision(): McpRevision {
  return known[known.length - 1]!;
}

/**
 * The era of a version string a peer claimed, known or not: a known revision's own, else by date, as the SDK
 * classifies (`isModernProtocolVersion`: on or after the first modern revision).
 */
export function eraOfClaim(claimed: string): McpEra {
  if (isMcpRevision(claimed)) return profileFor(claimed).era;
  const firstModern = revisionsOfEra('modern')[0];
  return firstModern !== undefined && claimed >= firstModern ? 'modern' : 'legacy';
}

/**
 * Maps a version string a peer claimed to the revision whose rules apply.
 * An unknown date (e.g. 2024-10-07, an old pre-release) gets the newest known
 * revision of its era not after it, so the peer never receives fields newer
 * than what it asked for; anything older than its era's oldest gets that oldest.
 */
export function effectiveRevision(claimed: string): McpRevision {
  if (isMcpRevision(claimed)) return claimed;
  const sameEra = revisionsOfEra(eraOfClaim(claimed));
  let best = sameEra[0]!;
  for (const revision of sameEra) if (revision <= claimed) best = revision;
  return best;
}

/**
 * Tests only: registers `revision` as one more revision with `rulesOf`'s rules, so the suites can run against a
 * revision this table did not know (test/integration/synthetic-revision.test.ts: 2026-07-28's rules under
 * 2027-03-30). It proves the table is the one place a revision is added; it is no way to serve a real one.
 */
export function registerRevisionForTest(revision: string, rulesOf: McpRevision): McpRevision {
  if (isMcpRevision(revision)) throw new Error(`revision ${revision} is known already`);
  if (revision <= known[known.length - 1]!) throw new Error(`a registered revision comes after ${known[known.length - 1]}`);
  const added = revision as McpRevision;
  const rules = profileFor(rulesOf);
  profiles.set(added, Object.freeze({ ...rules, revision: added }));
  known.push(added);
  return added;
}
