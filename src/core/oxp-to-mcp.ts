/**
 * OXP → MCP translation (version-independent; project.ts then fits the
 * result to the peer's revision).
 *
 * Invariants: `developer_message` and upstream transport detail never reach
 * MCP content; every success carries a text block so clients that read only
 * `content` work; a value that breaks the tool's own object output schema is
 * reported as an error instead of a result strict clients would reject.
 */
import { isPlainObject, type JsonObject, type JsonValue } from './json.js';
import type { CatalogEntry } from './catalog.js';
import { contentFromValue, declaresBinary } from './binary-parts.js';
import { secretEnvName } from './requirements.js';
import type { OxpCallOutcome, OxpToolError } from './oxp-wire.js';
import {
  ERROR_META_KEY,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_URL_ELICITATION_REQUIRED,
  TOOL_META_KEY,
  type McpCallToolResult,
  type McpErrorReply,
  type McpTool,
} from './mcp-wire.js';

export function toMcpTool(entry: CatalogEntry): McpTool {
  const { tool } = entry;
  // An MCP title carried through an oxp-server (x-mcp) wins over the OXP name.
  const title = tool.title ?? tool.annotations?.title ?? tool.name ?? tool.key;
  // Hosts show the description to the model: never leave it empty.
  const description = tool.description?.trim() ? tool.description : `${String(title)} (OXP tool ${tool.key})`;
  const mcp: McpTool = { name: entry.name, title: String(title), description, inputSchema: tool.inputSchema };
  if (tool.annotations !== undefined) mcp.annotations = tool.annotations;
  // Binary output is sent as image/audio content (binary-parts.ts), which an outputSchema would contradict.
  if (tool.outputSchema !== undefined && !declaresBinary(tool.outputSchema)) mcp.outputSchema = tool.outputSchema;
  mcp._meta = { [TOOL_META_KEY]: { id: tool.key, ...(tool.version ? { version: tool.version } : {}) } };
  return mcp;
}

/** Whether an output schema's root is an object (as 2025-era revisions require). */
export function hasObjectRoot(schema: JsonObject | undefined): boolean {
  return schema !== undefined && schema.type === 'object';
}

export type McpCallReply = { result: McpCallToolResult } | { error: McpErrorReply };

export const NO_OUTPUT_TEXT = 'The tool ran successfully and returned no output.';

/** A tool's 500, for the model and the person: what happened, whether to try again, where the cause is. */
export const TOOL_CRASHED_TEXT =
  "The tool failed on the tool server with an internal error (HTTP 500) and returned no result. Calling it again with the same arguments is likely to fail the same way; the cause is in the tool server's logs.";

/**
 * The tool server refused the bridge's own credentials: an operator's problem, which no retry and no change of
 * arguments fixes. The same words for a call, a listing (bridge.ts) and the console.
 */
export function credentialsRefusedText(status: number): string {
  return `The tool server refused the bridge's credentials (HTTP ${status}). This is not a problem with the call: an administrator must check the bridge's upstream credentials (OXP_API_KEY, OXP_BEARER_TOKEN or OXP_JWT_SECRET, or the upstream's apiKey / bearerToken / jwtSecret).`;
}

export function toMcpCallReply(outcome: OxpCallOutcome, entry: CatalogEntry): McpCallReply {
  switch (outcome.kind) {
    case 'success':
      return { result: successResult(outcome.value, entry) };
    case 'tool_error':
      return { result: toolErrorResult(outcome.error) };
    case 'invalid_input': {
      const lines = outcome.parameterErrors.map((p) => `- ${p.parameter}: ${p.message}`);
      const text = [`Invalid arguments for tool ${entry.name}: ${outcome.message}`, ...lines].join('\n');
      return errorResult(text, { kind: 'invalid_input', parameter_errors: Object.fromEntries(outcome.parameterErrors.map((p) => [p.parameter, p.message])) });
    }
    case 'unknown_tool':
      return { error: { code: JSONRPC_INVALID_PARAMS, message: `Unknown tool: ${entry.name} (the tool server no longer offers it)` } };
    case 'requirements_missing':
      return requirementsResult(outcome);
    case 'precondition_failed':
      return errorResult(`The tool server refused the call: ${outcome.message}`, { kind: 'precondition_failed', status: outcome.status });
    case 'auth_failed':
      return errorResult(credentialsRefusedText(outcome.status), { kind: 'upstream_auth_failed', status: outcome.status, can_retry: false });
    case 'tool_crashed':
      return errorResult(TOOL_CRASHED_TEXT, { kind: 'tool_crashed', status: outcome.status, can_retry: false });
    case 'unavailable': {
      const meta: JsonObject = { kind: 'upstream_unavailable', status: outcome.status, can_retry: true };
      if (outcome.retryAfterMs !== undefined) meta.retry_after_ms = outcome.retryAfterMs;
      return errorResult(`The tool server is temporarily unavailable (HTTP ${outcome.status}). Try again${retryAfterText(outcome.retryAfterMs)}.`, meta);
    }
    case 'protocol_error':
      return errorResult(outcome.message ?? 'The tool server returned a response the bridge could not understand.', {
        kind: 'upstream_protocol_error',
        status: outcome.status,
      });
    case 'unreachable':
      return errorResult('The tool server could not be reached. Try again later.', { kind: 'upstream_unreachable', can_retry: true });
    case 'timeout':
      return errorResult('The tool server did not answer in time.', { kind: 'upstream_timeout', can_retry: true });
    case 'circuit_open':
      return errorResult(`The tool server is failing; the bridge paused calls to it. Try again${retryAfterText(outcome.retryAfterMs)}.`, {
        kind: 'circuit_open',
        can_retry: true,
        retry_after_ms: outcome.retryAfterMs,
      });
  }
}

function successResult(value: JsonValue, entry: CatalogEntry): McpCallToolResult {
  const schema = entry.tool.outputSchema;
  const blocks = contentFromValue(value, schema);
  if (blocks) return { content: blocks };
  if (hasObjectRoot(schema) && !isPlainObject(value)) {
    return errorResult(
      `The tool returned a value that does not match its declared output schema (an object was expected). The value was: ${JSON.stringify(value)}`,
      { kind: 'output_schema_mismatch' },
    ).result;
  }
  if (value === null && schema === undefined) return { content: [{ type: 'text', text: NO_OUTPUT_TEXT }] };
  // Strings read best as themselves; everything else as compact JSON.
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return { content: [{ type: 'text', text }], structuredContent: value };
}

/**
 * The MCP text of an OXP tool error: the message, then the prompt content and
 * the retry hint. mcp-to-oxp.ts inverts it (with `message: ''` it is the suffix).
 */
export function toolErrorText(error: Pick<OxpToolError, 'message' | 'additionalPromptContent' | 'canRetry' | 'retryAfterMs'>): string {
  let text = error.message;
  if (error.additionalPromptContent) text += `\n\n${error.additionalPromptContent}`;
  if (error.canRetry) text += `\n\nThis call can be retried${retryAfterText(error.retryAfterMs)}.`;
  return text;
}

function toolErrorResult(error: OxpToolError): McpCallToolResult {
  const text = toolErrorText(error);
  const meta: JsonObject = { kind: 'tool_error', can_retry: error.canRetry };
  if (error.retryAfterMs !== undefined) meta.retry_after_ms = error.retryAfterMs;
  if (error.additionalPromptContent) meta.additional_prompt_content = error.additionalPromptContent;
  return errorResult(text, meta).result;
}

function requirementsResult(outcome: Extract<OxpCallOutcome, { kind: 'requirements_missing' }>): McpCallReply {
  const lines = [outcome.message];
  for (const c of outcome.authorization) lines.push(`Authorization required (${c.id}): open this link to grant access, then call the tool again: ${c.url}`);
  if (outcome.userId) lines.push('The tool needs a user id; the bridge administrator must configure one (--user-id or OXP_USER_ID).');
  for (const s of outcome.secrets)
    lines.push(
      `The tool needs the secret ${s}; the bridge administrator must configure it (environment variable ${secretEnvName(s)}, or requirements.secrets in the config file).`,
    );
  const meta: JsonObject = { kind: 'requirements_missing' };
  if (outcome.secrets.length) meta.missing_secrets = outcome.secrets;
  if (outcome.userId) meta.missing_user_id = true;
  const first = outcome.authorization[0];
  const reply = errorResult(lines.join('\n'), meta);
  if (first) {
    const machine: JsonObject = { authorization_url: first.url };
    if (first.checkUrl) machine.check_url = first.checkUrl;
    meta.authorization_url = first.url;
    reply.result.content.push({ type: 'text', text: JSON.stringify(machine) });
  }
  return reply;
}

/** A call the bridge itself ends as a tool error, in its own words (a failed token exchange, a reached limit): `_meta` says which kind. */
export function bridgeToolError(message: string, meta: JsonObject): McpCallReply {
  return errorResult(message, meta);
}

/** A tool server's authorization challenge whose link the bridge refuses to pass on (authorization-links.ts). */
export function unsafeLinkReply(message: string): McpCallReply {
  return errorResult(message, { kind: 'unsafe_authorization_link' });
}

/** A URL the user must visit before the call can succeed (the first authorization challenge). */
export interface UrlElicitation {
  /** Stable per provider: the `inputRequests` key and the 2025-11-25 `elicitationId` stem. */
  key: string;
  providerId: string;
  message: string;
  url: string;
  checkUrl?: string;
}

export function urlElicitationFor(outcome: OxpCallOutcome, entry: CatalogEntry): UrlElicitation | undefined {
  if (outcome.kind !== 'requirements_missing') return undefined;
  const first = outcome.authorization[0];
  if (!first) return undefined;
  const elicitation: UrlElicitation = {
    key: `authorize_${first.id.replace(/[^A-Za-z0-9_-]/g, '_')}`,
    providerId: first.id,
    message: `${entry.name} needs your authorization with ${first.id}. Open the link to grant access; the call continues afterwards.`,
    url: first.url,
  };
  if (first.checkUrl) elicitation.checkUrl = first.checkUrl;
  return elicitation;
}

/** The 2025-11-25 `-32042` URLElicitationRequired error for clients that declared URL elicitation. */
export function urlElicitationError(elicitation: UrlElicitation, elicitationId: string): McpErrorReply {
  return {
    code: JSONRPC_URL_ELICITATION_REQUIRED,
    message: 'This request requires more information.',
    data: { elicitations: [{ mode: 'url', elicitationId, url: elicitation.url, message: elicitation.message }] },
  };
}

function retryAfterText(ms: number | undefined): string {
  return ms !== undefined && ms > 0 ? ` after ${ms} ms` : ' later';
}

function errorResult(text: string, meta: JsonObject): { result: McpCallToolResult } {
  return { result: { content: [{ type: 'text', text }], isError: true, _meta: { [ERROR_META_KEY]: meta } } };
}
