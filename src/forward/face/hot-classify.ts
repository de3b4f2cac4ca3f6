/**
 * The bridge's own classification of the two hot shapes — a plain
 * `tools/call` or `tools/list` request of either era — ahead of the SDK's.
 *
 * What it replaces: the SDK's `classifyInboundRequest` for these requests
 * only. The SDK's classifier first tries the body against the result- and
 * error-response schemas (two zod parses that fail and allocate their
 * issues), then the request schema, then zod-parses the 2026-07-28 envelope:
 * the largest single step of a plain call (bench/README.md, the ablation of
 * 2026-11-24 and issue 24's decision 1).
 * This check reads the same facts directly, once, and returns the very
 * outcome the SDK returns (`modern` request at the claimed revision, or `legacy` /
 * `no-claim`) with the request as the face answers it (`HotShape`:
 * hot-path.ts and classify-http.ts read nothing of the body again), or
 * `undefined` — meaning "not a hot shape, or not sure" — and then the caller
 * asks the SDK, unchanged. It never rejects: every refusal is the SDK's. It
 * needs nothing of the SDK loaded (mcp-sdk-facts.ts), so the first plain
 * request after ready does not wait for the SDK's load.
 *
 * It accepts a subset of what the SDK accepts, never more:
 *  - the JSON-RPC request exactly: members `jsonrpc` ("2.0"), `id` (a string
 *    or a safe integer, as zod's `int()`), `method`, `params` and no other;
 *  - `params` with only the hot members (`name`, `arguments`, `_meta` /
 *    `cursor`, `_meta`), `_meta` with only the keys the hot path takes;
 *  - the modern era (2026-07-28 on): the envelope claiming exactly a modern
 *    revision of core/mcp-versions.ts, its client
 *    capabilities and client info checked as the SDK's envelope schema does
 *    (anything this copy is unsure of — icons, URL elicitation, a non-finite
 *    number, a `__proto__` key — is left to the SDK), and the
 *    `MCP-Protocol-Version`, `Mcp-Method` and (tools/call) `Mcp-Name` headers
 *    present, unpadded and equal to the body;
 *  - 2025 era: no envelope claim, and no version header or a supported
 *    2025-era one.
 *
 * The figure that justifies it: a build with the SDK's classifier in its
 * place costs more instructions per plain call, both eras, end to end
 * (`npm run bench:receipts -- hot-classify`; the figures: bench/README.md#owned-copies-receipts-issue-31).
 * What holds it to the library: test/integration/differential.test.ts (the
 * bridge against a plain SDK server, 103 cases around these shapes) and
 * src/forward/face/hot-classify.test.ts (this function against
 * `classifyInboundRequest`, outcome for outcome, on the same cases).
 * When to delete it: when `bench:receipts -- hot-classify` puts the SDK's
 * classifier within ~2 % of a call (e.g. it tries the request schema before
 * the response schemas), or the SDK exports a cheap guard for plain requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainObject } from '../../core/json.js';
import { eraOfClaim, isMcpRevision, profileFor } from '../../core/mcp-versions.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isSupportedLegacyRevision,
  PROTOCOL_VERSION_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from './mcp-sdk-facts.js';
import type { InboundClassificationOutcome } from './mcp-server-sdk.js';

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_PARAMS = new Set(['name', 'arguments', '_meta']);
const LIST_PARAMS = new Set(['cursor', '_meta']);
const MODERN_META = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY]);
const LEGACY_META = new Set([TRACEPARENT_META_KEY, TRACESTATE_META_KEY]);
/** MCP names the bridge mints: plain in an `Mcp-Name` header (no Base64 sentinel to decode). */
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A plain request as the face answers it (hot-path.ts). */
export interface HotRequest {
  method: 'tools/call' | 'tools/list';
  id: string | number;
  params: Record<string, unknown>;
}

/** One read of a hot shape's body and headers: what the SDK would classify it as, and what the face needs to answer it. */
export interface HotShape {
  /** The SDK classifier's outcome for it. */
  outcome: Extract<InboundClassificationOutcome, { kind: 'modern' | 'legacy' }>;
  request: HotRequest;
  /** The whole message, for the revision's official schema (hot-path.ts). */
  body: Record<string, unknown>;
  /** `params._meta`, when there is one. */
  meta: Record<string, unknown> | undefined;
  /**
   * The face may answer it if its params validate: the SDK's answer takes nothing more into account. Not so for a
   * tools/call whose name is not plain (`Mcp-Name` may then carry Base64), nor for a 2025-era request that does not
   * accept both media types (the SDK refuses it with 406).
   */
  answerable: boolean;
}

/** The SDK's outcome for a hot shape, or undefined: ask the SDK. */
export function classifyHotShape(httpMethod: string, headers: IncomingHttpHeaders, body: unknown): InboundClassificationOutcome | undefined {
  return classifyHot(httpMethod, headers, body)?.outcome;
}

/** A hot shape read once, or undefined: not one, or not sure (the SDK classifies it). */
export function classifyHot(httpMethod: string, headers: IncomingHttpHeaders, body: unknown): HotShape | undefined {
  if (httpMethod !== 'POST' || !isPlainObject(body) || !onlyKeys(body, REQUEST_MEMBERS) || body.jsonrpc !== '2.0') return undefined;
  const { id, method, params } = body;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  if (method === 'tools/call') {
    if (!isPlainObject(params) || !onlyKeys(params, CALL_PARAMS) || typeof params.name !== 'string') return undefined;
    if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  } else if (method === 'tools/list') {
    if (params !== undefined && (!isPlainObject(params) || !onlyKeys(params, LIST_PARAMS))) return undefined;
    if (params?.cursor !== undefined && typeof params.cursor !== 'string') return undefined;
  } else return undefined;
  const meta = params?._meta;
  if (meta !== undefined && !isPlainObject(meta)) return undefined;
  const version = headers['mcp-protocol-version'];
  const request: HotRequest = { method, id, params: params ?? {} };

  if (meta !== undefined && PROTOCOL_VERSION_META_KEY in meta) {
    // A modern revision (2026-07-28 on): a valid envelope naming one the bridge knows, and the standard headers mirroring the body.
    const claimed = meta[PROTOCOL_VERSION_META_KEY];
    if (!onlyKeys(meta, MODERN_META) || !isMcpRevision(claimed) || profileFor(claimed).era !== 'modern') return undefined;
    if (!isClientCapabilities(meta[CLIENT_CAPABILITIES_META_KEY]) || !isClientInfo(meta[CLIENT_INFO_META_KEY])) return undefined;
    if (version !== claimed || headers['mcp-method'] !== method) return undefined;
    if (method === 'tools/call' && headers['mcp-name'] !== request.params.name) return undefined;
    const outcome = { kind: 'modern', messageKind: 'request', message: body as never, classification: { era: 'modern', revision: claimed } } as const;
    return { outcome, request, body, meta, answerable: method === 'tools/list' || PLAIN_NAME.test(request.params.name as string) };
  }

  // 2025 era: no claim, and a version header that names no modern revision (the SDK reads no other header here).
  if (meta !== undefined && !onlyKeys(meta, LEGACY_META)) return undefined;
  const accept = headers.accept;
  const answerable = accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
  if (version === undefined) return { outcome: { kind: 'legacy', reason: 'no-claim' }, request, body, meta, answerable };
  if (typeof version !== 'string' || eraOfClaim(version) === 'modern' || !isSupportedLegacyRevision(version)) return undefined;
  return { outcome: { kind: 'legacy', reason: 'no-claim', requestedVersion: version }, request, body, meta, answerable };
}

export function onlyKeys(object: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in object) if (!allowed.has(key)) return false;
  return true;
}

/**
 * The SDK's 2026-07-28 `clientCapabilities` schema (a non-strict object: other
 * members pass unread), for what this copy is sure of; false sends it to the SDK.
 */
function isClientCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const { experimental, sampling, elicitation, roots, extensions } = value;
  if (experimental !== undefined && !isRecordOfJsonObjects(experimental)) return false;
  if (extensions !== undefined && !isRecordOfJsonObjects(extensions)) return false;
  if (sampling !== undefined && !(isPlainObject(sampling) && optionalJsonObject(sampling.context) && optionalJsonObject(sampling.tools))) return false;
  if (roots !== undefined && !(isPlainObject(roots) && (roots.listChanged === undefined || typeof roots.listChanged === 'boolean'))) return false;
  if (elicitation !== undefined) {
    // URL elicitation is never a hot request (hot-path.ts): the SDK reads it.
    if (!isJsonObject(elicitation) || elicitation.url !== undefined) return false;
    const form = elicitation.form;
    if (form !== undefined && !(isPlainObject(form) && (form.applyDefaults === undefined || typeof form.applyDefaults === 'boolean'))) return false;
  }
  return true;
}

/** The SDK's `Implementation` (name and version; title, websiteUrl, description strings; icons left to the SDK). */
function isClientInfo(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isPlainObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string' || value.icons !== undefined) return false;
  return optionalString(value.title) && optionalString(value.websiteUrl) && optionalString(value.description);
}

const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const optionalJsonObject = (value: unknown) => value === undefined || isJsonObject(value);

function isRecordOfJsonObjects(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (key === '__proto__' || !isJsonObject(value[key])) return false;
  return true;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (key === '__proto__' || !isJsonValue(value[key])) return false;
  return true;
}

/** JSON.parse's values, except a non-finite number (`1e999`), which zod's number refuses. */
function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonValue);
      return isJsonObject(value);
    default:
      return false;
  }
}
