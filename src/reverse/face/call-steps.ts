/**
 * The reverse direction's steps of the call gate's one step (calls/gate.ts): resolve (the body's envelope and tool
 * id, looked up among the tools this caller may call: parse-call.ts), check (its input and context), run (the
 * source's tool, aborted when the client goes away). Each sets on the call (oxp-call.ts) what the face renders:
 * the refusal, or the reply. Nothing here writes to the wire.
 */
import type { CallSteps } from '../../calls/gate.js';
import type { OxpServerReply } from '../../core/oxp-wire.js';
import { declaredContext } from '../../core/requirements.js';
import { ATTR } from '../../platform/telemetry/attributes.js';
import type { InputValidator } from '../../platform/validation/input-validator.js';
import type { OxpAccess } from './access.js';
import type { CatalogIndex } from './catalog-index.js';
import type { OxpCall } from './oxp-call.js';
import { checkCall, resolveCall, type CallRejection } from './parse-call.js';
import type { SourceTool, ToolSource } from './tool-source.js';

export interface StepParts<T extends SourceTool> {
  source: ToolSource<T>;
  catalog: CatalogIndex<T>;
  access: OxpAccess;
  validator: InputValidator;
}

export function oxpCallSteps<T extends SourceTool>({ source, catalog, access, validator }: StepParts<T>): CallSteps<T, OxpCall<T>> {
  return {
    resolve: (call) => {
      const all = catalog.current();
      const resolved = resolveCall(call.body, { index: access.indexFor(all, call.caller), all, source });
      if (!('rejected' in resolved)) {
        call.request = resolved.request;
        call.unknown = resolved.unknown;
        return resolved.tool;
      }
      rejected(call, resolved.rejected);
      return undefined;
    },
    check: (call, tool) => {
      const checked = checkCall(call.request!, tool, validator);
      if ('rejected' in checked) return rejected(call, checked.rejected);
      call.args = call.input = checked.input;
      call.context = checked.context;
      call.callId = checked.callId;
      call.traceId = checked.traceId;
      return true;
    },
    refused: (call, refusal) => (call.refusal = refusal),
    run: (call, tool) => run(source, call, tool),
  };
}

function rejected(call: OxpCall, rejection: CallRejection): false {
  call.rejection = rejection;
  call.outcome = rejection.status === 422 ? 'invalid_input' : rejection.status === 503 ? 'unavailable' : 'refused';
  return false;
}

/** Runs a checked call on the source (aborted when the client goes away): its reply, outcome and duration on the call. */
async function run<T extends SourceTool>(source: ToolSource<T>, call: OxpCall<T>, tool: T): Promise<void> {
  const { res, span, callId } = call;
  if (span?.recording) span.set({ [ATTR.toolName]: `${tool.key}@${tool.version}`, [ATTR.toolCallId]: callId! });
  const aborter = new AbortController();
  call.signal = aborter.signal;
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  const started = (call.started = performance.now());
  const declared = declaredContext(tool.requirements, call.context);
  const reply = await source.call(tool, call.input, {
    callId: callId!,
    signal: aborter.signal,
    onTask: (taskId) => (call.mcpTaskId = taskId),
    ...(call.traceId !== undefined ? { traceId: call.traceId } : {}),
    ...(declared ? { context: declared } : {}),
    ...(span ? { span } : {}),
  });
  // One reading for the answer's `duration`, the log line and the record (the gate's: audit trail, console, log).
  call.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  if (span?.recording) span.set({ [ATTR.outcome]: outcomeName(reply) });
  call.outcome = res.destroyed ? 'cancelled' : outcomeName(reply);
  call.reply = reply;
}

function outcomeName(reply: OxpServerReply): 'success' | 'tool_error' | 'refused' | 'unavailable' | 'invalid_input' {
  return 'value' in reply
    ? 'success'
    : 'error' in reply
      ? 'tool_error'
      : 'refused' in reply
        ? 'refused'
        : 'unavailable' in reply
          ? 'unavailable'
          : 'invalid_input';
}
