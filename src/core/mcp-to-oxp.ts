/**
 * MCP → OXP translation, pure: the tools of MCP servers become OXP 1.0
 * ToolDefinitions, and MCP call results become OXP call replies.
 *
 * Invariants:
 * - every id is `Toolkit.Tool@x.y.z` and matches the OXP ToolId grammar;
 *   every `name` matches ^[A-Za-z0-9_-]{1,64}$; (id, version) is unique
 *   across all upstreams, and all versions of one id share one `name`;
 * - ids depend only on configuration, the upstreams' order and their tool
 *   names: never on listing order or time;
 * - the catalog's entries are the only way back from an OXP id to an MCP
 *   tool (ids are never reversed by string surgery);
 * - a `{result}` wrapper the MCP side added around a non-object output is
 *   removed from the schema and from every value;
 * - upstream protocol detail reaches `developer_message` only.
 */
import semver from 'semver';
import { DEEP_RESULT_MESSAGE, MAX_RESULT_DEPTH } from './bounds.js';
import { partsFromContent } from './binary-parts.js';
import { X_MCP } from './content-parts.js';
import { isPlainObject, jsonBoundExceeded, truncate, tryParseJson, type JsonObject, type JsonValue } from './json.js';
import {
  ERROR_META_KEY,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_MISSING_REQUIRED_CLIENT_CAPABILITY,
  JSONRPC_URL_ELICITATION_REQUIRED,
  TASKS_EXTENSION,
  TOOL_META_KEY,
  type McpCallToolResult,
  type McpTool,
} from './mcp-wire.js';
import { assignToolkits, claimName, claimPart, publishedTools, requiresTask, type OxpToolPolicy, type PublishedTool } from './mcp-to-oxp-names.js';
import { configuredDescription } from './mcp-to-oxp-policy.js';
import { hasObjectRoot, NO_OUTPUT_TEXT, toolErrorText } from './oxp-to-mcp.js';
import type { OxpRequirements, OxpServerReply, ToolErrorWire } from './oxp-wire.js';
import { notFound } from './oxp-versioning.js';
import { linkProblem, refusal } from './authorization-links.js';
import { wrapOutputSchema } from './project.js';

/** Used when neither the configuration, the tool nor the server names a semver version. */
export const DEFAULT_TOOL_VERSION = '1.0.0';
const VERSION_RE = /^\d+\.\d+\.\d+$/;
const MAX_UPSTREAM_TEXT = 2_000;
/** `retry_after_ms` of a 503 when nothing better is known (the first reconnection delay, doubled). */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** What one MCP server listed, with what the configuration says about it. */
export interface UpstreamListing {
  /** Position in the configuration: earlier upstreams win name collisions. */
  upstream: number;
  /** Configured toolkit (already valid), else derived from `serverName`. */
  toolkit?: string;
  /** Configured version for all its tools. */
  version?: string;
  /** `serverInfo` as the server reported it. */
  serverName?: string;
  serverVersion?: string;
  tools: readonly McpTool[];
  /** Requirements declared for every tool of this upstream, then per MCP tool name. */
  requirements?: OxpRequirements;
  perTool?: Readonly<Record<string, { version?: string; requirements?: OxpRequirements }>>;
  /** allow/deny (globs over MCP names), rename (per MCP name) and descriptions (per MCP or published name: mcp-to-oxp-policy.ts). */
  policy?: OxpToolPolicy;
  /** The server takes task-augmented `tools/call`: its task-required tools are published, and called as tasks. */
  toolTasks?: boolean;
}

export interface OxpToolEntry {
  /** `Toolkit.Tool` */
  readonly key: string;
  readonly version: string;
  readonly upstream: number;
  /** The MCP tool's own name: what `tools/call` is sent with. */
  readonly mcpName: string;
  readonly mcpTool: McpTool;
  /** The OXP ToolDefinition, as `GET /tools` lists it. */
  readonly definition: JsonObject;
  readonly inputSchema: JsonObject;
  /** The OXP output schema (unwrapped); undefined when the MCP tool declares none. */
  readonly outputSchema?: JsonObject;
  /** The MCP side wraps values as `{result: v}`. */
  readonly wrapped: boolean;
  readonly requirements?: OxpRequirements;
  /** Called as an MCP task (the tool requires it: `execution.taskSupport` "required"). */
  readonly asTask: boolean;
}

export { toolkitFromServerName } from './mcp-to-oxp-names.js';

/** `1.2.3` as is; `1.2.3-beta.1` → `1.2.3`; anything that is not semver → undefined. */
export function semverCore(version: string | undefined): string | undefined {
  const parsed = version === undefined ? null : semver.parse(version);
  return parsed ? `${parsed.major}.${parsed.minor}.${parsed.patch}` : undefined;
}

/** The version a tool is published under: configured per tool, per upstream, then the tool's bridge metadata, then the server's. */
function toolVersion(listing: UpstreamListing, tool: McpTool): string {
  const meta = isPlainObject(tool._meta) ? tool._meta[TOOL_META_KEY] : undefined;
  const fromMeta = isPlainObject(meta) && typeof meta.version === 'string' && VERSION_RE.test(meta.version) ? meta.version : undefined;
  return listing.perTool?.[tool.name]?.version ?? listing.version ?? fromMeta ?? semverCore(listing.serverVersion) ?? DEFAULT_TOOL_VERSION;
}

/**
 * The `{result}` wrapper's inner schema, when `schema` is exactly what a
 * 2025-era server advertises for a non-object output (wrapOutputSchema's
 * shape, optionally with `$schema`/`additionalProperties`/`description`).
 */
export function unwrapResultSchema(schema: JsonObject): JsonObject | undefined {
  const inner = isPlainObject(schema.properties) ? schema.properties.result : undefined;
  if (!isPlainObject(inner) || hasObjectRoot(inner)) return undefined;
  const { $schema: _s, additionalProperties: _a, description: _d, ...rest } = schema;
  const wrapper = wrapOutputSchema(inner);
  const same =
    Object.keys(rest).length === Object.keys(wrapper).length && Object.keys(wrapper).every((k) => JSON.stringify(rest[k]) === JSON.stringify(wrapper[k]));
  return same ? inner : undefined;
}

/**
 * Builds the OXP catalog of every listing. Claims are settled in upstream
 * order, then exact names, then MCP name order (mcp-to-oxp-names.ts), so the
 * result depends only on the content.
 */
export function buildOxpCatalog(listings: readonly UpstreamListing[]): OxpToolEntry[] {
  const entries: OxpToolEntry[] = [];
  const takenParts = new Map<string, Set<string>>(); // `${toolkit}@${version}` → tool parts
  const nameByKey = new Map<string, string>();
  const takenNames = new Set<string>();
  const toolkits = assignToolkits(listings);
  for (const listing of [...listings].sort((a, b) => a.upstream - b.upstream)) {
    const toolkit = toolkits.get(listing.upstream)!;
    for (const published of publishedTools(listing.tools, listing.policy, listing.toolTasks === true)) {
      const version = toolVersion(listing, published.tool);
      const slot = `${toolkit}@${version}`;
      const parts = takenParts.get(slot) ?? new Set<string>();
      takenParts.set(slot, parts);
      const key = `${toolkit}.${claimPart(published, listing.upstream, parts)}`;
      let name = nameByKey.get(key);
      if (name === undefined) {
        name = claimName(published.wanted, key.slice(toolkit.length + 1), toolkit, key, takenNames);
        nameByKey.set(key, name);
      }
      entries.push(toEntry(listing, published, toolkit, key, version, name));
    }
  }
  return entries;
}

/** MCP `title` and `annotations` (the four hints and their title), for `input_schema["x-mcp"]`; undefined when there are none. */
export function mcpMetadata(tool: McpTool): JsonObject | undefined {
  const out: JsonObject = {};
  const annotations = isPlainObject(tool.annotations) ? tool.annotations : undefined;
  // A title that only repeats the name says nothing (an MCP face of this bridge titles OXP tools by their name).
  if (typeof tool.title === 'string' && tool.title !== tool.name) out.title = tool.title;
  const kept: JsonObject = {};
  if (typeof annotations?.title === 'string' && annotations.title !== tool.name) kept.title = annotations.title;
  for (const hint of HINTS) if (typeof annotations?.[hint] === 'boolean') kept[hint] = annotations[hint];
  if (Object.keys(kept).length) out.annotations = kept;
  return Object.keys(out).length ? out : undefined;
}

function toEntry(listing: UpstreamListing, published: PublishedTool, toolkit: string, key: string, version: string, name: string): OxpToolEntry {
  const { tool } = published;
  const inputSchema = isPlainObject(tool.inputSchema) ? tool.inputSchema : { type: 'object', properties: {} };
  const advertised = isPlainObject(tool.outputSchema) ? tool.outputSchema : undefined;
  const unwrapped = advertised ? unwrapResultSchema(advertised) : undefined;
  const outputSchema = unwrapped ?? advertised;
  const requirements = listing.perTool?.[tool.name]?.requirements ?? listing.requirements;
  const annotationTitle = isPlainObject(tool.annotations) && typeof tool.annotations.title === 'string' ? tool.annotations.title : undefined;
  const configured = configuredDescription(listing.policy?.descriptions, { mcpName: tool.name, wanted: published.wanted, name, key, version });
  const description =
    configured ??
    (tool.description?.trim() ? tool.description : `${tool.title ?? annotationTitle ?? tool.name} (MCP tool ${JSON.stringify(tool.name)} of ${toolkit})`);
  const metadata = mcpMetadata(tool);
  const listedSchema = metadata ? { ...inputSchema, [X_MCP]: metadata } : inputSchema;
  const definition: JsonObject = { id: `${key}@${version}`, name, description, version, input_schema: listedSchema };
  if (outputSchema) definition.output_schema = outputSchema;
  if (requirements) definition.requirements = requirements as JsonObject;
  return {
    key,
    version,
    upstream: listing.upstream,
    mcpName: tool.name,
    mcpTool: tool,
    definition,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    wrapped: unwrapped !== undefined,
    ...(requirements ? { requirements } : {}),
    asTask: requiresTask(tool),
  };
}

// ------------------------------------------------------------------ calls

/** How one MCP `tools/call` ended, as the client adapter reports it. */
export type McpCallOutcome =
  | { kind: 'result'; result: McpCallToolResult }
  /** A 2026-07-28 `input_required` result (never auto-fulfilled by the bridge). */
  | { kind: 'input_required'; inputRequests: Record<string, unknown> }
  /** A JSON-RPC error answer. */
  | { kind: 'rpc_error'; code: number; message: string; data?: unknown }
  /** No answer before the call deadline. */
  | { kind: 'timeout' }
  /**
   * No answer at all: the upstream is down, restarting or unreachable.
   * `retryable` when the server provably did not run the call (refused connection, lost session).
   */
  | { kind: 'unreachable'; detail: string; retryable?: boolean; retryAfterMs?: number }
  /** A task that ended without a result the OXP client can use (cancelled by the server, malformed): `message` is for the client. */
  | { kind: 'no_result'; message: string; detail: string; canRetry?: boolean };

/** The reply, plus whether the upstream said the tool is gone (the catalog should be refreshed). */
export interface OxpReplyFor {
  reply: OxpServerReply;
  toolGone?: boolean;
}

export function toOxpReply(outcome: McpCallOutcome, entry: OxpToolEntry): OxpReplyFor {
  switch (outcome.kind) {
    case 'result':
      // Before anything serialises it (JSON.stringify recurses): `{structuredContent: value}` is one level above the value.
      if (jsonBoundExceeded(outcome.result, MAX_RESULT_DEPTH + 1)) {
        return {
          reply: {
            error: {
              message: DEEP_RESULT_MESSAGE,
              developer_message: `the MCP result of ${JSON.stringify(entry.mcpName)} nests deeper than ${MAX_RESULT_DEPTH + 1} levels`,
            },
          },
        };
      }
      return { reply: outcome.result.isError ? { error: toolErrorFrom(outcome.result) } : { value: valueFrom(outcome.result, entry) } };
    case 'input_required':
      return { reply: inputRequiredReply(outcome.inputRequests) };
    case 'rpc_error':
      return rpcErrorReply(outcome, entry);
    case 'timeout':
      return { reply: { error: { message: 'The tool did not finish in time.', can_retry: true } } };
    case 'no_result':
      return {
        reply: {
          error: {
            message: outcome.message,
            developer_message: truncate(outcome.detail, MAX_UPSTREAM_TEXT),
            ...(outcome.canRetry !== undefined ? { can_retry: outcome.canRetry } : {}),
          },
        },
      };
    case 'unreachable':
      // Provably not run (no connection, refused): 503 with the retry hints; lost mid-call: 400, the tool may have run.
      if (outcome.retryable) {
        return {
          reply: {
            unavailable: {
              message: `The tool server behind ${entry.key} is not connected at the moment. Try again shortly.`,
              developer_message: truncate(outcome.detail, MAX_UPSTREAM_TEXT),
              can_retry: true,
              retry_after_ms: outcome.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS,
            },
          },
        };
      }
      return {
        reply: {
          refused: {
            message: `The tool server behind ${entry.key} is temporarily unavailable. Try again later.`,
            developer_message: truncate(outcome.detail, MAX_UPSTREAM_TEXT),
          },
        },
      };
  }
}

/**
 * The OXP `value` of a successful MCP result: `structuredContent` (without
 * the `{result}` wrapper); else a lone text block's text (parsed as JSON when
 * the output schema declares a non-string value; its annotations are not
 * carried: the value is the tool's output); else the content as parts
 * (content-parts.ts: each block readable without MCP, with what the part
 * leaves out under `x-mcp`);
 * no content at all is `null`, and so is the text an MCP face of this
 * bridge sends for an OXP `null` from a tool without output schema.
 */
export function valueFrom(result: McpCallToolResult, entry: Pick<OxpToolEntry, 'wrapped' | 'outputSchema'>): JsonValue {
  const structured = result.structuredContent;
  if (structured !== undefined) return entry.wrapped && isPlainObject(structured) && 'result' in structured ? structured.result : structured;
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0) return null;
  const only = content[0]!;
  if (content.length === 1 && only.type === 'text' && typeof only.text === 'string') {
    if (!entry.outputSchema) return only.text === NO_OUTPUT_TEXT ? null : only.text;
    if (entry.outputSchema.type === 'string') return only.text;
    const parsed = tryParseJson(only.text);
    return parsed === undefined ? only.text : (parsed as JsonValue);
  }
  // Several blocks, or one that is not plain text: inline parts (content-parts.ts), each readable without MCP.
  return partsFromContent(content);
}

/**
 * An `isError` result → OXP ToolError. Retry hints come back from the
 * `_meta` an MCP face of this bridge put there (so they survive two hops),
 * and the message is the text without the hint sentences that face added.
 */
export function toolErrorFrom(result: McpCallToolResult): ToolErrorWire {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
  const meta = isPlainObject(result._meta) ? result._meta[ERROR_META_KEY] : undefined;
  const hints = isPlainObject(meta) ? meta : {};
  const error: ToolErrorWire = { message: '' };
  if (typeof hints.can_retry === 'boolean') error.can_retry = hints.can_retry;
  if (typeof hints.retry_after_ms === 'number' && Number.isInteger(hints.retry_after_ms) && hints.retry_after_ms >= 0)
    error.retry_after_ms = hints.retry_after_ms;
  if (typeof hints.additional_prompt_content === 'string') error.additional_prompt_content = hints.additional_prompt_content;
  let message = hints.kind === 'tool_error' ? (texts[0] ?? '') : texts.join('\n');
  if (hints.kind === 'tool_error') {
    const suffix = toolErrorText({
      message: '',
      canRetry: error.can_retry === true,
      ...(error.retry_after_ms !== undefined ? { retryAfterMs: error.retry_after_ms } : {}),
      ...(error.additional_prompt_content !== undefined ? { additionalPromptContent: error.additional_prompt_content } : {}),
    });
    if (suffix && message.endsWith(suffix)) message = message.slice(0, -suffix.length);
  }
  error.message = truncate(message.trim(), MAX_UPSTREAM_TEXT) || 'The tool reported an error.';
  return error;
}

const AUTHORIZATION_MESSAGE = 'The tool needs your authorization before it can run. Open the link, then call the tool again.';

/** The OXP 400 carrying URL elicitations as authorization challenges; refused whole when a link is not http(s). */
function authorizationReply(authorization: { id: string; url: string }[]): OxpServerReply {
  for (const { url } of authorization) {
    const problem = linkProblem(url);
    if (problem) return { refused: { message: refusal('an authorization link', problem) } };
  }
  return { refused: { message: AUTHORIZATION_MESSAGE, missing_requirements: { authorization } } };
}

/** URL-mode elicitations → OXP authorization challenges; any other input request cannot be carried by OXP. */
function inputRequiredReply(inputRequests: Record<string, unknown>): OxpServerReply {
  const authorization: { id: string; url: string }[] = [];
  const others: string[] = [];
  for (const [key, request] of Object.entries(inputRequests)) {
    const params = isPlainObject(request) && isPlainObject(request.params) ? request.params : undefined;
    if (isPlainObject(request) && request.method === 'elicitation/create' && params?.mode === 'url' && typeof params.url === 'string')
      authorization.push({ id: key, url: params.url });
    else others.push(isPlainObject(request) && typeof request.method === 'string' ? request.method : key);
  }
  if (authorization.length) return authorizationReply(authorization);
  return {
    refused: {
      message: 'The tool asked for interactive input, which an OXP call cannot provide.',
      developer_message: `MCP input_required with ${others.join(', ')}`,
    },
  };
}

function rpcErrorReply(outcome: Extract<McpCallOutcome, { kind: 'rpc_error' }>, entry: OxpToolEntry): OxpReplyFor {
  const detail = `MCP error ${outcome.code} from tools/call ${JSON.stringify(entry.mcpName)}: ${truncate(outcome.message, MAX_UPSTREAM_TEXT)}`;
  if (outcome.code === JSONRPC_URL_ELICITATION_REQUIRED) {
    const listed = isPlainObject(outcome.data) && Array.isArray(outcome.data.elicitations) ? outcome.data.elicitations : [];
    const authorization = listed.flatMap((e, i) =>
      isPlainObject(e) && typeof e.url === 'string'
        ? [{ id: typeof e.elicitationId === 'string' && e.elicitationId ? e.elicitationId : `authorization_${i + 1}`, url: e.url }]
        : [],
    );
    if (authorization.length) return { reply: authorizationReply(authorization) };
  }
  if (outcome.code === JSONRPC_INVALID_PARAMS) {
    if (/unknown tool|tool .*not found|no such tool|not found/i.test(outcome.message)) {
      return { reply: { refused: notFound(entry.key, detail) }, toolGone: true };
    }
    return { reply: { invalid: { message: `The tool rejected its input: ${truncate(outcome.message, 500)}` } } };
  }
  if (outcome.code === JSONRPC_INTERNAL_ERROR) return { reply: { error: { message: 'The tool failed unexpectedly.', developer_message: detail } } };
  if (outcome.code === JSONRPC_MISSING_REQUIRED_CLIENT_CAPABILITY)
    return { reply: { refused: { message: missingCapabilityText(outcome.data), developer_message: detail } } };
  return { reply: { refused: { message: 'The tool server refused the call.', developer_message: detail } } };
}

/**
 * A 2026-07-28 server that will run a tool only as a task (or with another capability the oxp-server does not
 * declare) answers -32021; the oxp-server declares no tasks extension (docs/oxp-server.md, Tasks), so such a tool
 * cannot be called through it.
 */
function missingCapabilityText(data: unknown): string {
  const required = isPlainObject(data) && isPlainObject(data.requiredCapabilities) ? data.requiredCapabilities : undefined;
  if (isPlainObject(required?.extensions) && required.extensions[TASKS_EXTENSION] !== undefined)
    return 'The tool server runs this tool only as an MCP task (the 2026-07-28 tasks extension), which the OXP gateway cannot drive: it cannot be called through OXP.';
  return 'The tool server requires a client capability the OXP gateway does not have: the tool cannot be called through OXP.';
}
