/**
 * The console's record of the bridge's calls: its recorder, hooked into the call gate as the gate's observer. Hooked
 * when the MCP pipeline loads, before express and the console's pages (the forward command hands both to the HTTP
 * face, commands/forward-console.ts; the face loads the pages after the pipeline), so that the first call after
 * start-up is recorded without waiting for them; the console's pages then read the same recorder. No express here.
 */
import { upstreamFailed } from '../core/call-outcomes.js';
import type { Bridge, CallReply } from '../forward/bridge/bridge.js';
import { CallRecorder, blankFinishedCall, type FinishedCall, type RecorderOptions } from './recorder.js';

/** One recorder per bridge: the pipeline and the console's pages ask for it in either order. */
const recorders = new WeakMap<Bridge, CallRecorder>();

/** The bridge's call recorder, made and hooked into its gate on first use. */
export function recordBridgeCalls(bridge: Bridge, config: RecorderOptions): CallRecorder {
  let recorder = recorders.get(bridge);
  if (recorder) return recorder;
  recorder = new CallRecorder(config);
  recorders.set(bridge, recorder);
  const into = recorder;
  // One object, filled per call: the recorder copies what it keeps (recorder.ts), so recording allocates nothing.
  const finished: FinishedCall = blankFinishedCall('');
  bridge.gate.observer = {
    callFinished: (call) => {
      finished.tool = call.toolName ?? '';
      finished.upstream = call.upstream;
      finished.revision = call.revision;
      finished.outcome = call.outcome;
      finished.durationMs = call.durationMs ?? 0;
      // Counted in the upstream's error rate when the upstream failed (core/call-outcomes.ts); tool errors and refusals are not.
      finished.failed = upstreamFailed(call.outcome);
      finished.callId = call.callId;
      finished.taskId = call.taskId;
      finished.taskState = call.taskState;
      finished.traceId = call.traceId;
      finished.principal = call.principal?.name;
      finished.principalKind = call.principal?.kind;
      finished.args = call.args;
      finished.result = replyValue(call.reply);
      into.record(finished);
      // Not kept past the call: the object outlives it.
      finished.args = finished.result = undefined;
    },
  };
  return recorder;
}

function replyValue(reply: CallReply | undefined): unknown {
  if (!reply) return undefined;
  if ('result' in reply) return reply.result;
  if ('error' in reply) return reply.error;
  return { inputRequired: reply.inputRequired.key };
}
