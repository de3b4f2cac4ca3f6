/**
 * Tolerant reader for OXP responses: list bodies and call responses.
 *
 * Invariants: never throws; every body (JSON or not, spec or drifted) maps to
 * exactly one normalised value; upstream text that reaches a user is bounded,
 * and HTML error pages are never passed through.
 */
import { DEEP_RESULT_MESSAGE, MAX_RESULT_DEPTH, schemaBoundProblem } from './bounds.js';
import { exceedsJsonDepth, isPlainObject, truncate, tryParseJson, type JsonObject, type JsonValue } from './json.js';
import type { AuthorizationChallenge, OxpCallOutcome, OxpRequirements, OxpTool, OxpToolError, ParameterError } from './oxp-wire.js';

const MAX_UPSTREAM_MESSAGE = 2_000;
export const MAX_RETRY_AFTER_MS = 60_000;
const VERSION_RE = /^\d+\.\d+\.\d+$/;

// ---------------------------------------------------------------- tool lists

export interface DecodedToolList {
  tools: OxpTool[];
  /** Human-readable reasons for entries that were skipped or repaired. */
  warnings: string[];
}

/** `GET /tools` body → tools. Accepts `items`, `tools` or a bare array. */
export function decodeToolList(body: unknown, maxTools: number): DecodedToolList {
  const warnings: string[] = [];
  let list: unknown;
  if (Array.isArray(body)) list = body;
  else if (isPlainObject(body) && Array.isArray(body.items)) list = body.items;
  else if (isPlainObject(body) && Array.isArray(body.tools)) list = body.tools;
  else {
    warnings.push('tool list body has no "items", "tools" or array: treated as empty');
    return { tools: [], warnings };
  }
  const raw = list as unknown[];
  if (raw.length > maxTools) {
    warnings.push(`tool list has ${raw.length} entries; only the first ${maxTools} are kept (limits.maxTools)`);
  }
  const tools: OxpTool[] = [];
  for (let i = 0; i < raw.length && i < maxTools; i++) {
    const decoded = decodeToolDefinition(raw[i]);
    if (typeof decoded === 'string') warnings.push(`tool #${i} skipped: ${decoded}`);
    else tools.push(decoded);
  }
  return { tools, warnings };
}

/** One ToolDefinition → OxpTool, or a reason string when it is unusable. */
export function decodeToolDefinition(raw: unknown): OxpTool | string {
  if (!isPlainObject(raw)) return 'not an object';
  const rawId = typeof raw.id === 'string' && raw.id.length > 0 ? raw.id : typeof raw.name === 'string' ? raw.name : '';
  if (rawId.length === 0 || rawId.length > 512) return 'missing or oversized "id"';
  const at = rawId.indexOf('@');
  const key = at >= 0 ? rawId.slice(0, at) : rawId;
  const idVersion = at >= 0 ? rawId.slice(at + 1) : undefined;
  if (key.length === 0) return `invalid id ${JSON.stringify(rawId)}`;
  // Before anything walks the schemas: everything downstream recurses over them.
  const tooBig = schemaBoundProblem(raw.input_schema, 'input_schema') ?? schemaBoundProblem(raw.output_schema, 'output_schema');
  if (tooBig) return `${rawId}: ${tooBig}`;
  let version: string | undefined;
  if (typeof raw.version === 'string' && VERSION_RE.test(raw.version)) version = raw.version;
  else if (idVersion && VERSION_RE.test(idVersion)) version = idVersion;
  else if (idVersion && /^\d+$/.test(idVersion)) version = `${idVersion}.0.0`;

  const inputSchema = decodeInputSchema(raw.input_schema);
  if (typeof inputSchema === 'string') return `${key}: ${inputSchema}`;

  const { 'x-mcp': mcp, ...plainSchema } = inputSchema;
  const tool: OxpTool = { key, inputSchema: mcp === undefined ? inputSchema : plainSchema };
  if (isPlainObject(mcp)) Object.assign(tool, mcpMetadataOf(mcp));
  if (version) tool.version = version;
  if (typeof raw.name === 'string') tool.name = raw.name;
  if (typeof raw.description === 'string') tool.description = raw.description;
  if (isPlainObject(raw.output_schema)) tool.outputSchema = raw.output_schema as JsonObject;
  const requirements = decodeRequirements(raw.requirements);
  if (requirements) tool.requirements = requirements;
  return tool;
}

const MCP_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** `input_schema["x-mcp"]` (an oxp-server's MCP title and annotations) → OxpTool fields; only the known, well-typed members. */
function mcpMetadataOf(mcp: Record<string, unknown>): Pick<OxpTool, 'title' | 'annotations'> {
  const out: Pick<OxpTool, 'title' | 'annotations'> = {};
  if (typeof mcp.title === 'string') out.title = truncate(mcp.title, 200);
  if (isPlainObject(mcp.annotations)) {
    const a = mcp.annotations;
    const annotations: JsonObject = {};
    if (typeof a.title === 'string') annotations.title = truncate(a.title, 200);
    for (const hint of MCP_HINTS) if (typeof a[hint] === 'boolean') annotations[hint] = a[hint];
    if (Object.keys(annotations).length) out.annotations = annotations;
  }
  return out;
}

/**
 * `input_schema` bare, wrapped in `{parameters}`, or absent → an object-rooted
 * schema, passed through verbatim otherwise (2020-12 keywords included).
 */
function decodeInputSchema(raw: unknown): JsonObject | string {
  if (raw === undefined || raw === null) return { type: 'object', properties: {} };
  if (!isPlainObject(raw)) return 'input_schema is not an object';
  let schema = raw;
  if (isPlainObject(raw.parameters) && raw.type === undefined && raw.properties === undefined) {
    schema = raw.parameters;
  }
  if (schema.type === undefined) return { type: 'object', ...(schema as JsonObject) };
  if (schema.type !== 'object') return `input_schema root type is ${JSON.stringify(schema.type)}, not "object"`;
  return schema as JsonObject;
}

export function decodeRequirements(raw: unknown): OxpRequirements | undefined {
  if (!isPlainObject(raw)) return undefined;
  const out: OxpRequirements = {};
  if (Array.isArray(raw.authorization)) {
    const auth = raw.authorization.filter(isPlainObject).flatMap((a) => {
      if (typeof a.id !== 'string') return [];
      const entry: { id: string; oauth2?: { scopes?: string[] } } = { id: a.id };
      if (isPlainObject(a.oauth2)) {
        const scopes = Array.isArray(a.oauth2.scopes) ? a.oauth2.scopes.filter((s): s is string => typeof s === 'string') : undefined;
        entry.oauth2 = scopes ? { scopes } : {};
      }
      return [entry];
    });
    if (auth.length > 0) out.authorization = auth;
  }
  if (Array.isArray(raw.secrets)) {
    const secrets = raw.secrets.filter(isPlainObject).flatMap((s) => (typeof s.id === 'string' ? [{ id: s.id }] : []));
    if (secrets.length > 0) out.secrets = secrets;
  }
  if (raw.user_id === true) out.user_id = true;
  return Object.keys(out).length > 0 ? out : undefined;
}

// ------------------------------------------------------------ call responses

export interface RawHttpResponse {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  body: string;
}

/** Classifies one `POST /tools/call` HTTP response. */
export function decodeCallResponse(res: RawHttpResponse): OxpCallOutcome {
  const status = res.status;
  // Checked on the text, before parsing: every reader below may recurse. Two levels are the envelope (`{result:{value:…}}`).
  const tooDeep = exceedsJsonDepth(res.body, MAX_RESULT_DEPTH + 2);
  if (tooDeep && status >= 200 && status < 300) {
    return { kind: 'protocol_error', status, detail: `HTTP ${status} body nests deeper than ${MAX_RESULT_DEPTH + 2} levels`, message: DEEP_RESULT_MESSAGE };
  }
  // A too-deep error body is classified by its status alone, its text shown cut (never parsed).
  const parsed = tooDeep ? undefined : tryParseJson(res.body);
  if (status >= 200 && status < 300) return decodeSuccessBody(parsed, res);
  if (status === 422) return decodeValidationError(parsed, res);
  if (status === 400) return decodeServerError(parsed, res);
  if (status === 413) {
    return {
      kind: 'precondition_failed',
      status,
      message: 'the request was too large for it (HTTP 413). Try again with smaller arguments.',
      developerMessage: upstreamText(parsed, res),
    };
  }
  if (status === 404) return { kind: 'unknown_tool', message: 'The tool was not found on the tool server.', developerMessage: upstreamText(parsed, res) };
  if (status === 401 || status === 403) {
    const text = upstreamText(parsed, res);
    // Some servers answer 403 for unknown tools so as not to reveal which exist.
    if (status === 403 && /does not exist|not found/i.test(text))
      return { kind: 'unknown_tool', message: 'The tool was not found on the tool server.', developerMessage: text };
    return { kind: 'auth_failed', status, detail: text };
  }
  if (status === 500) return { kind: 'tool_crashed', status, detail: upstreamText(parsed, res) };
  if (status === 408 || status === 429 || status > 500) {
    const outcome: OxpCallOutcome = { kind: 'unavailable', status, detail: upstreamText(parsed, res) };
    const retryAfterMs = retryAfterFromHeaders(res.headers);
    if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
    return outcome;
  }
  return { kind: 'protocol_error', status, detail: `unexpected HTTP ${status}: ${upstreamText(parsed, res)}` };
}

function decodeSuccessBody(parsed: unknown, res: RawHttpResponse): OxpCallOutcome {
  if (!isPlainObject(parsed)) {
    const what = res.body.length === 0 ? 'an empty body' : parsed === undefined ? 'a body that is not JSON' : 'a JSON body that is not an object';
    return { kind: 'protocol_error', status: res.status, detail: `HTTP ${res.status} with ${what}: ${previewBody(res)}` };
  }
  // `{result: {...}}` per the spec; flat bodies from universal-tool-server. Either must
  // look like a CallToolResponse: anything else (`{"result":[…]}`, `{}`) is not OXP.
  const result = isCallToolResponse(parsed.result) ? parsed.result : isCallToolResponse(parsed) ? parsed : undefined;
  if (!result)
    return {
      kind: 'protocol_error',
      status: res.status,
      detail: `HTTP ${res.status} with a JSON body that is not a CallToolResponse (no success, value or error): ${previewBody(res)}`,
    };
  const callId = typeof result.call_id === 'string' ? result.call_id : typeof result.execution_id === 'string' ? result.execution_id : undefined;
  // An `error` present means failure, whatever `success` says.
  if (result.error !== undefined && result.error !== null) {
    const outcome: OxpCallOutcome = { kind: 'tool_error', error: decodeToolError(result.error) };
    if (callId) outcome.callId = callId;
    return outcome;
  }
  if (result.success === false) {
    const outcome: OxpCallOutcome = { kind: 'tool_error', error: { message: 'The tool reported a failure without details.', canRetry: false } };
    if (callId) outcome.callId = callId;
    return outcome;
  }
  const value = (result.value === undefined ? null : result.value) as JsonValue;
  // langchain-tool-server disguises an OAuth challenge as a successful value.
  if (isPlainObject(value) && value.auth_required === true && typeof value.auth_url === 'string') {
    return {
      kind: 'requirements_missing',
      message: 'The tool needs authorization before it can run.',
      authorization: [{ id: typeof value.auth_id === 'string' ? value.auth_id : 'default', url: value.auth_url }],
      userId: false,
      secrets: [],
    };
  }
  const outcome: OxpCallOutcome = { kind: 'success', value };
  if (callId) outcome.callId = callId;
  if (typeof result.duration === 'number' && Number.isFinite(result.duration)) outcome.durationMs = result.duration;
  return outcome;
}

function isCallToolResponse(body: unknown): body is Record<string, unknown> {
  return isPlainObject(body) && ('success' in body || 'value' in body || 'error' in body);
}

export function decodeToolError(raw: unknown): OxpToolError {
  if (typeof raw === 'string') return { message: boundText(raw) || 'The tool failed.', canRetry: false };
  if (!isPlainObject(raw)) return { message: 'The tool failed.', canRetry: false };
  const error: OxpToolError = {
    message: typeof raw.message === 'string' && raw.message.trim() ? boundText(raw.message) : 'The tool failed.',
    canRetry: raw.can_retry === true,
  };
  if (typeof raw.developer_message === 'string') error.developerMessage = raw.developer_message;
  if (typeof raw.additional_prompt_content === 'string' && raw.additional_prompt_content) {
    error.additionalPromptContent = boundText(raw.additional_prompt_content);
  }
  const retryAfterMs = normaliseRetryAfterMs(raw.retry_after_ms);
  if (retryAfterMs !== undefined) error.retryAfterMs = retryAfterMs;
  return error;
}

function decodeValidationError(parsed: unknown, res: RawHttpResponse): OxpCallOutcome {
  const body = isPlainObject(parsed) ? parsed : {};
  const parameterErrors: ParameterError[] = [];
  if (isPlainObject(body.parameter_errors)) {
    for (const [parameter, msg] of Object.entries(body.parameter_errors)) {
      const message = Array.isArray(msg) ? msg.map(String).join('; ') : typeof msg === 'string' ? msg : JSON.stringify(msg);
      parameterErrors.push({ parameter, message: boundText(message) });
    }
  }
  parameterErrors.push(...fastApiDetailErrors(body.detail));
  const message =
    typeof body.message === 'string' ? boundText(body.message) : parameterErrors.length ? 'Some input parameters are invalid.' : upstreamText(parsed, res);
  return { kind: 'invalid_input', message, parameterErrors };
}

/** FastAPI `{"detail":[{"loc":["body","x"],"msg":"..."}]}` → parameter errors. */
function fastApiDetailErrors(detail: unknown): ParameterError[] {
  if (!Array.isArray(detail)) return [];
  return detail.filter(isPlainObject).flatMap((d) => {
    if (typeof d.msg !== 'string') return [];
    const loc = Array.isArray(d.loc) ? d.loc.filter((p) => p !== 'body' && p !== 'request' && p !== 'input') : [];
    return [{ parameter: loc.length ? loc.map(String).join('.') : '(input)', message: boundText(d.msg) }];
  });
}

const NOT_FOUND_RE = /not (?:be )?found|unknown tool|does not exist|no such tool|not available/i;

function decodeServerError(parsed: unknown, res: RawHttpResponse): OxpCallOutcome {
  const body = isPlainObject(parsed) ? parsed : {};
  const developerMessage = typeof body.developer_message === 'string' ? body.developer_message : undefined;
  const message = upstreamText(parsed, res);
  const missing = isPlainObject(body.missing_requirements) ? body.missing_requirements : undefined;
  if (missing) {
    const outcome: OxpCallOutcome = {
      kind: 'requirements_missing',
      message,
      authorization: decodeChallenges(missing.authorization),
      userId: missing.user_id === true,
      secrets: Array.isArray(missing.secrets)
        ? missing.secrets.flatMap((s) => (isPlainObject(s) && typeof s.id === 'string' ? [s.id] : typeof s === 'string' ? [s] : []))
        : [],
    };
    if (developerMessage) outcome.developerMessage = developerMessage;
    return outcome;
  }
  // universal-tool-server answers schema-invalid input with 400 {"detail":[...]}.
  if (Array.isArray(body.detail)) {
    const parameterErrors = fastApiDetailErrors(body.detail);
    return { kind: 'invalid_input', message: parameterErrors.length ? 'Some input parameters are invalid.' : message, parameterErrors };
  }
  if (NOT_FOUND_RE.test(message) || (developerMessage && NOT_FOUND_RE.test(developerMessage))) {
    const outcome: OxpCallOutcome = { kind: 'unknown_tool', message };
    if (developerMessage) outcome.developerMessage = developerMessage;
    return outcome;
  }
  const outcome: OxpCallOutcome = { kind: 'precondition_failed', status: res.status, message };
  if (developerMessage) outcome.developerMessage = developerMessage;
  return outcome;
}

function decodeChallenges(raw: unknown): AuthorizationChallenge[] {
  const list = Array.isArray(raw) ? raw : isPlainObject(raw) ? [raw] : [];
  return list.filter(isPlainObject).flatMap((c) => {
    const url = typeof c.url === 'string' ? c.url : typeof c.authorization_url === 'string' ? c.authorization_url : undefined;
    if (!url) return [];
    const challenge: AuthorizationChallenge = { id: typeof c.id === 'string' ? c.id : typeof c.provider_id === 'string' ? c.provider_id : 'default', url };
    if (typeof c.check_url === 'string') challenge.checkUrl = c.check_url;
    return [challenge];
  });
}

// -------------------------------------------------------------------- helpers

/**
 * The most specific human-readable text in an error body: `message`, `error`
 * (string or object), FastAPI `detail` (string or list), else the raw body.
 * HTML pages are summarised, never passed through.
 */
export function upstreamText(parsed: unknown, res: RawHttpResponse): string {
  if (isPlainObject(parsed)) {
    if (typeof parsed.message === 'string' && parsed.message) return boundText(parsed.message);
    if (typeof parsed.error === 'string' && parsed.error) return boundText(parsed.error);
    if (isPlainObject(parsed.error) && typeof parsed.error.message === 'string') return boundText(parsed.error.message);
    if (typeof parsed.detail === 'string' && parsed.detail) return boundText(parsed.detail);
    if (Array.isArray(parsed.detail)) {
      const parts = parsed.detail.map((d) => (isPlainObject(d) && typeof d.msg === 'string' ? d.msg : typeof d === 'string' ? d : JSON.stringify(d)));
      if (parts.length) return boundText(parts.join('; '));
    }
  }
  return previewBody(res);
}

function previewBody(res: RawHttpResponse): string {
  if (res.body.length === 0) return `(empty body, HTTP ${res.status})`;
  const type = res.headers['content-type'] ?? '';
  if (/html/i.test(type) || /^\s*<(?:!doctype|html|head|body)/i.test(res.body)) {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(res.body)?.[1]?.trim();
    return `(HTML page${title ? ` "${title}"` : ''}, HTTP ${res.status})`;
  }
  return boundText(res.body);
}

function boundText(text: string): string {
  return truncate(text, MAX_UPSTREAM_MESSAGE);
}

/**
 * `retry_after_ms` as servers really send it: integer, float, numeric string,
 * negative or huge → a whole number of ms in [0, 60 s], or undefined.
 */
export function normaliseRetryAfterMs(raw: unknown): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(n)));
}

/** `Retry-After-Ms`, then `Retry-After` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: Record<string, string | undefined>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined) {
    const n = normaliseRetryAfterMs(ms);
    if (n !== undefined) return n;
  }
  const ra = headers['retry-after'];
  if (ra === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return normaliseRetryAfterMs(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : normaliseRetryAfterMs(date - now);
}
