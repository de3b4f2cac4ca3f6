/**
 * How an MCP `tools/call` and `tools/list` become bridge calls, defined once
 * for every path that answers them (the front's own answer for plain
 * requests, and the SDK's handlers for everything else, on HTTP and stdio):
 * who the user is, which revision, whether URL elicitation may be asked for,
 * progress, trace context and cancellation all come from the
 * InboundRequest.
 */
import type { Bridge, CallContext, CallReply, ResumeState } from '../bridge/bridge.js';
import type { TaskRecord } from '../bridge/task-calls.js';
import { profileFor } from '../../core/mcp-versions.js';
import type { CallCancellations } from './cancellations.js';
import { messageKey, type InboundRequest } from './inbound.js';
import { providerTokens } from './provider-tokens.js';

export interface CallHooks {
  /** The answering layer's own abort (e.g. the SDK's per-request signal), joined with the client's. */
  signal?: AbortSignal;
  /** Sends one `notifications/progress` (only asked for when the client sent a progress token). */
  notifyProgress?: (params: { progressToken: string | number; progress: number; message?: string }) => Promise<void>;
  /** A verified 2026-07-28 retry after input_required. */
  resume?: { state: ResumeState; accepted: boolean };
}

/** A tools/call that became an MCP task: the front answers with a CreateTaskResult of its revision. */
export interface TaskCreated {
  task: TaskRecord;
}

export function callTool(
  bridge: Bridge,
  inbound: InboundRequest,
  id: string | number,
  params: { name: string; arguments?: unknown; task?: unknown },
  hooks: CallHooks,
  cancellations?: CallCancellations,
): Promise<CallReply | TaskCreated> {
  const message = inbound.messages.get(messageKey(id));
  // Stateless 2025-era HTTP: the client's notifications/cancelled (another POST) reaches this call through the registry.
  const cancellable =
    inbound.transport === 'http' && inbound.era === 'legacy' ? cancellations?.track(inbound.sessionId, inbound.principal?.subject, id) : undefined;
  const signals = [inbound.signal, hooks.signal, cancellable?.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
  const progressToken = message?.progressToken;
  const notify = hooks.notifyProgress;
  const authorization = inbound.headers ? providerTokens(inbound.headers, bridge.authorizationHeaderPrefix) : undefined;
  const ctx: CallContext = {
    signal,
    ...(inbound.principal ? { principal: inbound.principal } : {}),
    ...(inbound.client !== undefined ? { client: inbound.client } : {}),
    urlElicitation: inbound.urlElicitation,
    ...(hooks.resume ? { resume: hooks.resume } : {}),
    ...(authorization ? { authorization } : {}),
    ...(message?.traceparent !== undefined ? { traceparent: message.traceparent } : {}),
    ...(progressToken !== undefined && notify
      ? {
          // `message` exists from 2025-03-26 on.
          progress: (progress: number, text: string) =>
            notify({ progressToken, progress, ...(profileFor(inbound.revision).has.progressMessage ? { message: text } : {}) }),
        }
      : {}),
  };
  const reply = bridge.tasks ? callToolOrTask(bridge, inbound, params, ctx) : bridge.callTool(inbound.revision, params.name, params.arguments, ctx);
  const settled = reply.catch((error: unknown) => {
    throw signal.aborted ? new CallAborted(error) : error;
  });
  return cancellable ? settled.finally(() => cancellable.done()) : settled;
}

/** A call the tasks service decides (task-calls.ts): plain, or a task. */
async function callToolOrTask(
  bridge: Bridge,
  inbound: InboundRequest,
  params: { name: string; arguments?: unknown; task?: unknown },
  ctx: CallContext,
): Promise<CallReply | TaskCreated> {
  const taskParam = params.task !== null && typeof params.task === 'object' ? (params.task as { ttl?: unknown }) : undefined;
  const answered = await bridge.tasks!.callTool({
    version: inbound.revision,
    name: params.name,
    args: params.arguments,
    ctx,
    taskParam,
    extension: inbound.tasksExtension === true,
    sessionId: inbound.sessionId,
    requestsToClient: inbound.transport === 'stdio',
  });
  return 'task' in answered ? answered : answered.reply;
}

/** The call ended because the client went away or cancelled it: MCP cancellation semantics, no answer is owed. */
export class CallAborted extends Error {
  constructor(cause: unknown) {
    super('the call was cancelled', { cause });
  }
}

export function listTools(bridge: Bridge, inbound: InboundRequest, id: string | number, cursor: string | undefined) {
  return bridge.listTools(inbound.revision, cursor, inbound.messages.get(messageKey(id))?.traceparent, inbound.principal);
}
