/**
 * How an MCP `tools/call` and `tools/list` become bridge calls, defined once
 * for every path that answers them (the face's own answer for plain
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
import type { CallSignal } from '../../platform/shared/call-signal.js';

export interface CallHooks {
  /** The answering layer's own abort (e.g. the SDK's per-request signal), joined with the client's. */
  signal?: AbortSignal;
  /** Sends one `notifications/progress` (only asked for when the client sent a progress token). */
  notifyProgress?: (params: { progressToken: string | number; progress: number; message?: string }) => Promise<void>;
  /** A verified 2026-07-28 retry after input_required. */
  resume?: { state: ResumeState; accepted: boolean };
}

/** A tools/call that became an MCP task: the face answers with a CreateTaskResult of its revision. */
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
  const signal = callSignal(inbound, hooks.signal, cancellable?.signal);
  const progressToken = message?.progressToken;
  const notify = hooks.notifyProgress;
  const authorization = inbound.headers ? providerTokens(inbound.headers, bridge.authorizationHeaderPrefix) : undefined;
  // Set field by field rather than spread: a plain call makes one object here, not one per optional field.
  const ctx: CallContext = { signal, urlElicitation: inbound.urlElicitation };
  if (inbound.principal) ctx.principal = inbound.principal;
  if (inbound.client !== undefined) ctx.client = inbound.client;
  if (hooks.resume) ctx.resume = hooks.resume;
  if (authorization) ctx.authorization = authorization;
  if (message?.traceparent !== undefined) ctx.traceparent = message.traceparent;
  // `message` exists from 2025-03-26 on.
  if (progressToken !== undefined && notify)
    ctx.progress = (progress: number, text: string) =>
      notify({ progressToken, progress, ...(profileFor(inbound.revision).has.progressMessage ? { message: text } : {}) });
  // The tasks service only for a call that may become a task (or be refused as a plain one): a plain call goes straight on.
  const taskParam = params.task !== null && typeof params.task === 'object' ? (params.task as { ttl?: unknown }) : undefined;
  const reply = bridge.tasks?.mayTakeTask(inbound.revision, taskParam, inbound.tasksExtension === true)
    ? callToolOrTask(bridge, inbound, params.name, params.arguments, taskParam, ctx)
    : bridge.callTool(inbound.revision, params.name, params.arguments, ctx);
  const settled = reply.catch((error: unknown) => {
    throw signal.aborted ? new CallAborted(error) : error;
  });
  return cancellable?.signal ? settled.finally(() => cancellable.done()) : settled;
}

/**
 * The call's one signal: the client going away (its CallSignal, which makes no AbortController), joined with the
 * hooks' or a 2025-era cancellation's when there are any.
 */
function callSignal(inbound: InboundRequest, hook: AbortSignal | undefined, cancellation: AbortSignal | undefined): CallSignal {
  if (hook === undefined && cancellation === undefined) return inbound.callSignal ?? inbound.signal;
  return AbortSignal.any([inbound.signal, hook, cancellation].filter((s): s is AbortSignal => s !== undefined));
}

/** A call the tasks service decides (task-calls.ts): plain, or a task. */
async function callToolOrTask(
  bridge: Bridge,
  inbound: InboundRequest,
  name: string,
  args: unknown,
  taskParam: { ttl?: unknown } | undefined,
  ctx: CallContext,
): Promise<CallReply | TaskCreated> {
  const answered = await bridge.tasks!.callTool({
    revision: inbound.revision,
    name,
    args,
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
