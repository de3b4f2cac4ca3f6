/**
 * The values the MCP → OXP orchestration (bridge.ts) takes and gives: its
 * options, a call's context from the face, and the replies it returns.
 */
import type { CallSignal } from '../../platform/shared/call-signal.js';
import type { McpCallToolResult, McpErrorReply } from '../../core/mcp-wire.js';
import type { Principal } from '../../core/principal.js';
import type { RuleRef } from '../../core/access-policy.js';
import type { CallOutcome } from '../../core/call-outcomes.js';

export interface BridgeOptions {
  /** Compiled input-schema validators kept (LRU). */
  maxValidators: number;
  /** Tools per `tools/list` page. */
  pageSize: number;
  /** Advertised to 2026-07-28 clients as `ttlMs` on tools/list. */
  listTtlMs: number;
  progressIntervalMs: number;
  /** The header prefix of per-user provider tokens (`requirements.authorizationHeaderPrefix`), lower-cased. */
  authorizationHeaderPrefix: string;
  /** How often, and how long, a resumed call polls an authorization check_url. */
  authorizationPollMs: number;
  authorizationWaitMs: number;
}

export interface CallContext {
  traceparent?: string;
  /** What stops the call: its client going away (or the task's own stop), as a CallSignal (platform/shared/call-signal.ts). */
  signal?: CallSignal;
  /**
   * Set when the client asked for progress (`_meta.progressToken`): called
   * every `progressIntervalMs` while the upstream works, so clients that
   * reset their timeout on progress keep waiting and streams stay active.
   */
  progress?: (progress: number, message: string) => Promise<void>;
  /** Per-user provider tokens sent with the request (HTTP `X-OXP-Authorization-<provider>`), by lower-cased provider id, parsed by the face. */
  authorization?: ReadonlyMap<string, string>;
  /** Who called: the authenticated principal (its subject is the OXP user_id), or undefined when nobody authenticated. */
  principal?: Principal;
  /** The client's address (HTTP), for the audit trail. */
  client?: string;
  /** The client declared URL-mode elicitation for this request (or session). */
  urlElicitation?: boolean;
  /** A 2026-07-28 retry after an `input_required`: the verified state and whether the user accepted. */
  resume?: { state: ResumeState; accepted: boolean };
  /** The OXP call_id to send (a task's, fixed at its creation so a re-drive is idempotent); a new one when absent. */
  callId?: string;
  /** The deadline of the OXP call, ms (a task's is longer); the tool's `callTimeoutMs` when absent. */
  deadlineMs?: number;
  /**
   * The MCP task this call runs for, once there is one: the per-call log line, the console and the audit trail name
   * it. A holder, because a 2026-07-28 call may become a task while it runs.
   */
  task?: { id?: string };
  /**
   * A 2025-11-25 task whose client can be sent an elicitation request (stdio): a URL authorization the tool server
   * asks for becomes the task's input round (`input_required`, the request delivered on `tasks/result`) instead of
   * the -32042 error a plain call gets.
   */
  inputViaTask?: boolean;
  /**
   * A task's call: told when its OXP call waits in the bridge for a connection to `upstream` (every one of
   * upstream.connections busy) and when it got one, so the task's statusMessage can say so (task-wait-note.ts).
   */
  connectionWait?: (upstream: string, waiting: boolean) => void;
  /** A task taken over from a replica that stopped: its call was charged to its limits when the task was created. */
  redrive?: boolean;
}

/**
 * What a 2026-07-28 retry needs to resume a call after the user authorized:
 * minted into an integrity-protected `requestState` by the face.
 */
export interface ResumeState {
  /** The OXP call_id of the interrupted call: the retry reuses it. */
  callId: string;
  tool: string;
  /** SHA-256 of the arguments: a state cannot be replayed with other arguments. */
  args: string;
  key: string;
  checkUrl?: string;
}

export interface InputRequiredReply {
  key: string;
  message: string;
  url: string;
  resume: ResumeState;
}

export type Reply<T> = { result: T } | { error: McpErrorReply };

/** What a tools/call came to: the reply, an outcome label for metrics, and the upstream and OXP call_id once known. */
export interface CallAnswer {
  reply: CallReply;
  outcome: CallOutcome;
  upstream?: string;
  callId?: string | undefined;
  /** The access rule that decided (denied it, limited it, or let it through), when a rule did. */
  rule?: RuleRef;
  /** The OXP tool id called (version pinned), once the tool is known: the audit trail names it. */
  oxpId?: string;
  /** The call's duration (ms from the tools/call's start) read when the upstream answered; undefined when it did not. */
  durationMs?: number;
  /** The MCP task the call ran for, and the state its answer leaves the task in (the console shows both). */
  taskId?: string;
  taskState?: string;
}

export type CallReply = Reply<McpCallToolResult> | { inputRequired: InputRequiredReply };
