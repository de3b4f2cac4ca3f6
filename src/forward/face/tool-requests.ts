/**
 * How an MCP `tools/call` and `tools/list` become bridge calls, defined once
 * for every path that answers them (the front's own answer for plain
 * requests, and the SDK's handlers for everything else, on HTTP and stdio):
 * who the user is, which revision, whether URL elicitation may be asked for,
 * progress, trace context and cancellation all come from the
 * InboundRequest.
 */
import type { Bridge, CallReply, ResumeState } from '../bridge/bridge.js';
import { profileFor } from '../../core/mcp-versions.js';
import type { CallCancellations } from './cancellations.js';
import { messageKey, type InboundRequest } from './inbound.js';

export interface CallHooks {
  /** The answering layer's own abort (e.g. the SDK's per-request signal), joined with the client's. */
  signal?: AbortSignal;
  /** Sends one `notifications/progress` (only asked for when the client sent a progress token). */
  notifyProgress?: (params: { progressToken: string | number; progress: number; message?: string }) => Promise<void>;
  /** A verified 2026-07-28 retry after input_required. */
  resume?: { state: ResumeState; accepted: boolean };
}

export function callTool(
  bridge: Bridge,
  inbound: InboundRequest,
  id: string | number,
  params: { name: string; arguments?: unknown },
  hooks: CallHooks,
  cancellations?: CallCancellations,
): Promise<CallReply> {
  const message = inbound.messages.get(messageKey(id));
  // Stateless 2025-era HTTP: the client's notifications/cancelled (another POST) reaches this call through the registry.
  const cancellable =
    inbound.transport === 'http' && inbound.era === 'legacy' ? cancellations?.track(inbound.sessionId, inbound.principal?.subject, id) : undefined;
  const signals = [inbound.signal, hooks.signal, cancellable?.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
  const progressToken = message?.progressToken;
  const notify = hooks.notifyProgress;
  const reply = bridge.callTool(inbound.revision, params.name, params.arguments, {
    signal,
    ...(inbound.principal ? { principal: inbound.principal } : {}),
    ...(inbound.client !== undefined ? { client: inbound.client } : {}),
    urlElicitation: inbound.urlElicitation,
    ...(hooks.resume ? { resume: hooks.resume } : {}),
    ...(inbound.headers ? { requestHeaders: inbound.headers } : {}),
    ...(message?.traceparent !== undefined ? { traceparent: message.traceparent } : {}),
    ...(progressToken !== undefined && notify
      ? {
          // `message` exists from 2025-03-26 on.
          progress: (progress: number, text: string) =>
            notify({ progressToken, progress, ...(profileFor(inbound.revision).has.progressMessage ? { message: text } : {}) }),
        }
      : {}),
  });
  const settled = reply.catch((error: unknown) => {
    throw signal.aborted ? new CallAborted(error) : error;
  });
  return cancellable ? settled.finally(() => cancellable.done()) : settled;
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
