/**
 * A `POST /tools/call` body read into a call the source can run, or the
 * answer that refuses it, in the call gate's steps (calls/gate.ts): resolve
 * — the envelope (`$schema`, the `request` wrapper, tolerated without it),
 * the tool id resolved to one version (400, or 503 while a source has not
 * listed yet) — and, once the gate has decided, check — the input validated
 * (422) and the declared context checked (400). Nothing here writes to the
 * wire.
 */
import { randomUUID } from 'node:crypto';
import { MAX_INPUT_DEPTH } from '../../core/bounds.js';
import { isPlainObject, jsonBoundExceeded, type JsonObject } from '../../core/json.js';
import { isAcceptedOxpSchema, notFound } from '../../core/oxp-versioning.js';
import type { ServerErrorBody, UnavailableBody } from '../../core/oxp-wire.js';
import { missingContext } from '../../core/requirements.js';
import type { InputValidator } from '../../platform/validation/input-validator.js';
import type { ToolIndex } from './catalog-index.js';
import type { SourceTool, ToolSource } from './tool-source.js';

export const UNSUPPORTED_SCHEMA = 'This tool server supports OXP 1.0 only.';
const TOOL_ID_RE = /^[A-Za-z0-9_]+\.[A-Za-z0-9_]+(@([0-9]+|[0-9]+\.[0-9]+\.[0-9]+))?$/;
const NOT_A_CALL = 'The request body must be a JSON object with a "request" member.';

export interface InvalidBody {
  message: string;
  parameter_errors?: Record<string, string>;
}

/** Why a call is not run: 400 (refused), 422 (invalid input) or 503 (its server has not listed yet). */
export type CallRejection = { status: 400; body: ServerErrorBody } | { status: 422; body: InvalidBody } | { status: 503; body: UnavailableBody };

/** What the call gate's check step passes on to the run: the input and context checked, the call's ids. */
export interface CheckedCall {
  input: JsonObject;
  /** The request's whole `context`, when it is an object (the source is handed only what the tool declared). */
  context: JsonObject | undefined;
  /** The client's `call_id`, or one generated for it. */
  callId: string;
  traceId: string | undefined;
}

/**
 * What resolving looks tools up in: `index` holds only the tools the caller may call (access.ts), `all` every tool
 * (a tool only `all` holds is hidden from the caller: resolved, for the gate to deny it with its rule on record).
 */
export interface CallLookup<T extends SourceTool> {
  index: ToolIndex<T>;
  all: ToolIndex<T>;
  source: ToolSource<T>;
}

const refused = (body: ServerErrorBody): { rejected: CallRejection } => ({ rejected: { status: 400, body } });
const invalid = (body: InvalidBody): { rejected: CallRejection } => ({ rejected: { status: 422, body } });

/**
 * The call gate's resolve step: the envelope read, the tool id resolved to one version (400, or 503 while its server
 * has not listed). A tool hidden from the caller resolves too, with `unknown`: the answer its id gets in the caller's
 * view, which is what the caller is told once the gate has denied it.
 */
export function resolveCall<T extends SourceTool>(
  body: unknown,
  lookup: CallLookup<T>,
): { request: Record<string, unknown>; tool: T; unknown?: CallRejection } | { rejected: CallRejection } {
  if (!isPlainObject(body)) return refused({ message: NOT_A_CALL });
  if (!isAcceptedOxpSchema(body.$schema))
    return refused({ message: UNSUPPORTED_SCHEMA, developer_message: `unsupported $schema ${JSON.stringify(body.$schema)}` });
  // Tolerated: a CallToolRequest sent without its `request` wrapper.
  const request = isPlainObject(body.request) ? body.request : typeof body.tool_id === 'string' ? body : undefined;
  if (!request) return refused({ message: NOT_A_CALL });
  const tool = toolOf(request.tool_id, lookup);
  if (!('rejected' in tool)) return { request, tool: tool.found };
  const hidden = lookup.index !== lookup.all && typeof request.tool_id === 'string' ? lookup.all.resolve(request.tool_id) : undefined;
  return hidden ? { request, tool: hidden, unknown: tool.rejected } : tool;
}

/** The call gate's check step: the input validated (422) and the declared context checked (400). */
export function checkCall(request: Record<string, unknown>, tool: SourceTool, validator: InputValidator): CheckedCall | { rejected: CallRejection } {
  const input = inputOf(request, tool, validator);
  if ('rejected' in input) return input;
  const context = isPlainObject(request.context) ? (request.context as JsonObject) : undefined;
  const missing = missingContext(tool.requirements, context);
  if (missing) return refused(missing);
  return {
    input: input.value,
    context,
    callId: typeof request.call_id === 'string' && request.call_id !== '' ? request.call_id : randomUUID(),
    traceId: typeof request.trace_id === 'string' ? request.trace_id : undefined,
  };
}

/** The tool a `tool_id` names, in one of the catalog's versions. */
function toolOf<T extends SourceTool>(toolId: unknown, { index, source }: Pick<CallLookup<T>, 'index' | 'source'>): { found: T } | { rejected: CallRejection } {
  if (typeof toolId !== 'string' || toolId === '') return refused({ message: 'The request has no tool_id.' });
  if (!TOOL_ID_RE.test(toolId)) return refused(unknownId(toolId, index, 'tool_id does not match Toolkit.Tool[@x | @x.y.z]'));
  const tool = index.resolve(toolId);
  if (tool) return { found: tool };
  const key = toolId.split('@')[0]!;
  const pending = index.has(key) ? undefined : source.notListedYet?.(key);
  if (pending) return { rejected: { status: 503, body: pending } };
  return refused(index.has(key) ? notFound(toolId, `${key} has no version matching ${toolId}`) : unknownId(toolId, index, `no tool ${key}`));
}

/**
 * The answer to a tool id the caller may not call (none such, or hidden from it: the same words), naming the closest
 * id in `index`, the caller's own tools: a hidden tool is never named.
 */
export function unknownId(toolId: string, index: ToolIndex<SourceTool>, developerMessage: string): ServerErrorBody {
  const body = notFound(toolId, developerMessage);
  const guess = index.closestKey(toolId);
  return guess === undefined ? body : { ...body, message: `${body.message} (did you mean ${guess}?)` };
}

/** The call's input (`input`, or `inputs`; none is `{}`), within the depth bound and valid against the tool's schema. */
function inputOf(request: Record<string, unknown>, tool: SourceTool, validator: InputValidator): { value: JsonObject } | { rejected: CallRejection } {
  const rawInput = request.input !== undefined ? request.input : request.inputs;
  if (rawInput !== undefined && rawInput !== null && !isPlainObject(rawInput)) {
    return invalid({ message: 'The input must be a JSON object.', parameter_errors: { '(input)': 'must be object' } });
  }
  const input = (rawInput ?? {}) as JsonObject;
  // Everything after this point (validation, the MCP client's serialisation) recurses over the input.
  if (jsonBoundExceeded(input, MAX_INPUT_DEPTH))
    return invalid({
      message: `The input nests deeper than ${MAX_INPUT_DEPTH} levels.`,
      parameter_errors: { '(input)': `nests deeper than ${MAX_INPUT_DEPTH} levels` },
    });
  const parameterErrors = validator.check({ id: `${tool.key}@${tool.version}`, inputSchema: tool.inputSchema }, input);
  if (parameterErrors) {
    return invalid({
      message: 'Some input parameters are invalid',
      parameter_errors: Object.fromEntries(parameterErrors.map((p) => [p.parameter, p.message])),
    });
  }
  return { value: input };
}

/** What a call body names, read without trusting it: its tool id, call_id and input (for a refusal's audit record). */
export function requestedCall(body: unknown): { toolId?: string; callId?: string; input?: unknown } {
  if (!isPlainObject(body)) return {};
  const request = isPlainObject(body.request) ? body.request : body;
  const input = isPlainObject(request.input) ? request.input : isPlainObject(request.inputs) ? request.inputs : undefined;
  return {
    ...(typeof request.tool_id === 'string' ? { toolId: request.tool_id } : {}),
    ...(typeof request.call_id === 'string' ? { callId: request.call_id } : {}),
    ...(input ? { input } : {}),
  };
}
