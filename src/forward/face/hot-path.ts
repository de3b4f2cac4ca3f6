/**
 * The face's own answer for the two hot methods, `tools/call` and
 * `tools/list`, when they are plain: the SDK's per-request machinery (a web
 * `Request`, a fresh `Server` and transport, zod, a web `Response` streamed
 * back) costs more than the bridge's own work.
 *
 * Which requests: the hot shapes (hot-classify.ts, which read the body and
 * headers once into the HotShape this takes) with nothing left to check but
 * the request's params — no progress token (its answer is a stream), no URL
 * elicitation (an input_required round), no input responses — and whose
 * params validate against the official schema of their revision (validators
 * precompiled from test/schemas by scripts/generate-validators.ts). Neither
 * needs the SDK loaded. Anything else goes to the SDK, which is always a
 * correct answer. The call itself is tool-requests.ts, the same
 * function the SDK's handlers run.
 *
 * The answers are encoded by core/mcp-encode.ts (the SDK does not export its
 * encoder).
 *
 * An owned copy of the SDK's answer (docs/design.md, "Owned copies of library
 * code"). The figure that justifies it: a build where the SDK's endpoint
 * answers these requests too costs far more instructions per plain call
 * (`npm run bench:receipts -- hot-path`; the figures:
 * bench/README.md#owned-copies-receipts-issue-31). What holds
 * it to the library: test/integration/differential.test.ts (these bytes
 * against a plain SDK server's). When to delete it: when the SDK answers a
 * plain call within ~2 % of this path's cost.
 */
import type { ServerResponse } from 'node:http';
import type { Bridge, Reply } from '../bridge/bridge.js';
import { encodeModernResult, jsonRpcErrorMessage, SSE_HEADERS, SSE_KEEPALIVE, sseMessageEvent } from '../../core/mcp-encode.js';
import type { Logger } from '../../platform/log.js';
import { profileFor } from '../../core/mcp-versions.js';
import { keepingConnectionClose } from '../../platform/net/drain-phase.js';
import { JSONRPC_INTERNAL_ERROR } from '../../core/mcp-wire.js';
import type { CallCancellations } from './cancellations.js';
import type { InboundRequest } from './inbound.js';
import type { HotRequest, HotShape } from './hot-classify.js';
import type { SessionState } from './session.js';
import { CallAborted, callTool, listTools } from './tool-requests.js';
import type { TaskRecord } from '../bridge/task-calls.js';
import { coreCreateTaskResult, extensionCreateTaskResult } from './task-wire.js';

type Validators = Record<string, { tools_call: (data: unknown) => boolean; tools_list: (data: unknown) => boolean }>;

const JSON_HEADERS = { 'content-type': 'application/json' };

export interface HotPathOptions {
  bridge: Bridge;
  serverInfo: { name: string; version: string };
  /** SSE keep-alive comment interval of the 2025-era stream (0 = off), as the SDK's. */
  keepAliveMs: number;
  log: Logger;
  cancellations?: CallCancellations;
}

export function createHotPath(options: HotPathOptions) {
  let validators: Validators | undefined;
  // ~170 KB of generated code, loaded off the start-up path; until it is in, the SDK answers everything.
  const loaded = import('./generated/request-validators.js').then(
    (m) => void (validators = m.requestValidators as Validators),
    (error: unknown) => options.log.warn({ err: String(error) }, 'request validators did not load: the SDK answers every request'),
  );

  // Both made once per face; per request they only pass their arguments on to the module functions below.
  return {
    /** Resolves once the validators are in (or failed to load: then the SDK answers everything). */
    loaded,
    get ready(): boolean {
      return validators !== undefined;
    },
    /** The plain request this is, or undefined when the SDK must answer it. */
    eligible: (hot: HotShape, inbound: InboundRequest, session: SessionState | undefined) => eligible(validators, hot, inbound, session),
    answer: (res: ServerResponse, inbound: InboundRequest, request: HotRequest): Promise<void> => answer(options, res, inbound, request),
  };
}

export type HotPath = ReturnType<typeof createHotPath>;

/** Runs a plain request and writes its answer: one JSON body (2026-07-28), or the 2025-era SSE stream of one event. */
async function answer(options: HotPathOptions, res: ServerResponse, inbound: InboundRequest, request: HotRequest): Promise<void> {
  const modern = inbound.era === 'modern';
  let keepAlive: NodeJS.Timeout | undefined;
  if (!modern) {
    // The SDK's 2025-era stream: headers now, keep-alive comments while the call runs, then one event.
    res.writeHead(200, keepingConnectionClose(res, SSE_HEADERS));
    if (Number.isFinite(options.keepAliveMs) && options.keepAliveMs >= 1) {
      keepAlive = setInterval(() => res.write(SSE_KEEPALIVE), options.keepAliveMs);
      keepAlive.unref();
    }
  }
  let message: Record<string, unknown>;
  try {
    const answered =
      request.method === 'tools/call'
        ? await callTool(options.bridge, inbound, request.id, request.params as { name: string; arguments?: unknown }, {}, options.cancellations)
        : await listTools(options.bridge, inbound, request.id, request.params.cursor as string | undefined);
    // Without URL elicitation the bridge never asks for input.
    if ('inputRequired' in answered) throw new Error('unexpected input_required reply for a client without URL elicitation');
    // A call that became a task (2026-07-28, the client declared the extension): its CreateTaskResult, as the SDK path writes it.
    const reply: Reply<unknown> = 'task' in answered ? { result: createTaskResult(answered.task, inbound, request) } : answered;
    message =
      'error' in reply
        ? jsonRpcErrorMessage(request.id, reply.error)
        : {
            result: modern ? encodeModernResult(request.method, reply.result as Record<string, unknown>, options.serverInfo) : reply.result,
            jsonrpc: '2.0',
            id: request.id,
          };
  } catch (error) {
    if (keepAlive) clearInterval(keepAlive);
    if (error instanceof CallAborted || (inbound.callSignal ?? inbound.signal).aborted) return void res.end();
    options.log.error({ err: error instanceof Error ? error.message : String(error) }, 'tool request failed');
    message = jsonRpcErrorMessage(request.id, { code: JSONRPC_INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  if (keepAlive) clearInterval(keepAlive);
  const json = JSON.stringify(message);
  if (modern) res.writeHead(200, JSON_HEADERS).end(json);
  else res.end(sseMessageEvent(json));
}

function createTaskResult(record: TaskRecord, inbound: InboundRequest, request: HotRequest): Record<string, unknown> {
  return profileFor(inbound.revision).tasks === 'extension' ? extensionCreateTaskResult(record) : coreCreateTaskResult(record, String(request.params.name));
}

/**
 * A hot shape (hot-classify.ts, which read the body and headers once) the face answers: the SDK's answer would take
 * nothing more into account, and its message validates against its revision's official schema.
 */
function eligible(validators: Validators | undefined, hot: HotShape, inbound: InboundRequest, session: SessionState | undefined): HotRequest | undefined {
  // A session or an envelope that declared URL elicitation may get an elicitation error: the SDK's.
  if (!validators || !hot.answerable || inbound.urlElicitation || session?.urlElicitation) return undefined;
  // inbound.revision: the modern revision claimed, or the 2025-era header's, else the session's, else the transport
  // default. A revision without generated validators (no schema yet) is the SDK's to answer.
  const validate = validators[inbound.revision]?.[hot.request.method === 'tools/call' ? 'tools_call' : 'tools_list'];
  return validate?.(hot.body) ? hot.request : undefined;
}
