/**
 * The values the MCP → OXP orchestration (bridge.ts) takes and gives: its
 * options, a call's context from the front, and the replies it returns.
 */
import type { McpVersion } from '../../core/mcp-versions.js';
import type { McpCallToolResult, McpErrorReply } from '../../core/mcp-wire.js';
import type { HeaderReader } from './requirement-values.js';
import type { Principal } from '../../core/principal.js';
import type { RuleRef } from '../../core/access-policy.js';

export interface BridgeOptions {
  /** Compiled input-schema validators kept (LRU). */
  maxValidators: number;
  /** Tools per `tools/list` page. */
  pageSize: number;
  /** Advertised to 2026-07-28 clients as `ttlMs` on tools/list. */
  listTtlMs: number;
  progressIntervalMs: number;
  /** How often, and how long, a resumed call polls an authorization check_url. */
  authorizationPollMs: number;
  authorizationWaitMs: number;
}

export interface CallContext {
  traceparent?: string;
  signal?: AbortSignal;
  /**
   * Set when the client asked for progress (`_meta.progressToken`): called
   * every `progressIntervalMs` while the upstream works, so clients that
   * reset their timeout on progress keep waiting and streams stay active.
   */
  progress?: (progress: number, message: string) => Promise<void>;
  /** The MCP request's HTTP headers (per-user authorization tokens ride on them). */
  requestHeaders?: HeaderReader;
  /** Who called: the authenticated principal (its subject is the OXP user_id), or undefined when nobody authenticated. */
  principal?: Principal;
  /** The client's address (HTTP), for the audit trail. */
  client?: string;
  /** The client declared URL-mode elicitation for this request (or session). */
  urlElicitation?: boolean;
  /** A 2026-07-28 retry after an `input_required`: the verified state and whether the user accepted. */
  resume?: { state: ResumeState; accepted: boolean };
}

/**
 * What a 2026-07-28 retry needs to resume a call after the user authorized:
 * minted into an integrity-protected `requestState` by the front.
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
  outcome: string;
  upstream?: string;
  callId?: string | undefined;
  /** The access rule that decided (denied it, limited it, or let it through), when a rule did. */
  rule?: RuleRef;
  /** The OXP tool id called (version pinned), once the tool is known: the audit trail names it. */
  oxpId?: string;
}

/**
 * Told about every finished tools/call (the console's recorder), after its reply is known. Positional, with the
 * call's own answer object, so telling it allocates nothing; `answer` is undefined when the call threw
 * (cancelled), `traceparent` the client's as received, `principal` who called (the anonymous principal when nobody
 * authenticated).
 */
export interface CallObserver {
  callFinished(
    tool: string,
    version: McpVersion,
    outcome: string,
    answer: CallAnswer | undefined,
    durationMs: number,
    args: unknown,
    traceparent: string | undefined,
    principal: Principal,
  ): void;
}
export type CallReply = Reply<McpCallToolResult> | { inputRequired: InputRequiredReply };
