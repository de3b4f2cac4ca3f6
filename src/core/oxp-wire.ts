/**
 * OXP 1.0 as the bridge understands it after tolerant decoding.
 *
 * These are normalised shapes, not the wire: the decoders in oxp-decode.ts
 * absorb the variants real servers send (listed in docs/translation.md,
 * "Error taxonomy (OXP → MCP)", and exercised by
 * test/fixtures/oxp-fixture-server.ts) so
 * nothing downstream ever branches on a server's dialect.
 */
import type { JsonObject, JsonValue } from './json.js';

/** The value every request body carries: the strict writer always sends it. */
export const OXP_SCHEMA_URN = 'urn:oxp:1.0';

/** The OXP security page's ceiling for a JWT's `exp`: at most 15 minutes ahead (minted forward, checked in reverse). */
export const MAX_JWT_TTL_SECONDS = 900;

export interface OxpRequirements {
  authorization?: { id: string; oauth2?: { scopes?: string[] } }[];
  secrets?: { id: string }[];
  user_id?: boolean;
}

/** A tool definition after normalisation. */
export interface OxpTool {
  /** Tool id without any `@version` suffix, e.g. `Calculator.Add`. */
  key: string;
  /** The `version` field, or the `@x.y.z` suffix of the id, if any. */
  version?: string;
  /** The OXP `name` as listed (may be missing or invalid as an MCP name). */
  name?: string;
  description?: string;
  /** MCP metadata an oxp-server put in `input_schema["x-mcp"]` (removed from `inputSchema`). */
  title?: string;
  annotations?: JsonObject;
  /** Input JSON Schema, unwrapped from `{parameters}`; always an object-rooted schema. */
  inputSchema: JsonObject;
  /**
   * Output JSON Schema. `undefined` means the tool declares no output
   * (`null`, absent); `{}` means "any JSON value".
   */
  outputSchema?: JsonObject;
  requirements?: OxpRequirements;
}

/** The tool id to send in `tools/call`: pinned to the listed version when one is known. */
export function callToolId(tool: OxpTool): string {
  return tool.version ? `${tool.key}@${tool.version}` : tool.key;
}

export interface OxpToolError {
  message: string;
  /** Never shown to users or models: logs only. */
  developerMessage?: string;
  canRetry: boolean;
  /** Normalised: a finite integer number of milliseconds, clamped to [0, 60 000]. */
  retryAfterMs?: number;
  additionalPromptContent?: string;
}

export interface ParameterError {
  parameter: string;
  message: string;
}

export interface AuthorizationChallenge {
  id: string;
  url: string;
  checkUrl?: string;
}

/** Everything a `POST /tools/call` exchange can end in, classified once. */
export type OxpCallOutcome =
  | { kind: 'success'; value: JsonValue; callId?: string; durationMs?: number }
  | { kind: 'tool_error'; error: OxpToolError; callId?: string }
  | { kind: 'invalid_input'; message: string; parameterErrors: ParameterError[] }
  | { kind: 'unknown_tool'; message: string; developerMessage?: string }
  | {
      kind: 'requirements_missing';
      message: string;
      developerMessage?: string;
      authorization: AuthorizationChallenge[];
      userId: boolean;
      secrets: string[];
    }
  /** A 400 precondition failure the user can act on (unsupported version, ...). */
  | { kind: 'precondition_failed'; status: number; message: string; developerMessage?: string }
  | { kind: 'auth_failed'; status: number; detail: string }
  /**
   * HTTP 500: the tool's code failed on the server (Python servers answer every exception in a tool this way, where
   * the spec wants 200 `success:false`). The tool's failure, not the server's: never retried, never counted by the
   * circuit breaker. The detail (the upstream's text) is for logs.
   */
  | { kind: 'tool_crashed'; status: number; detail: string }
  /** 408, 429, and 5xx but 500: worth retrying when 408/429/502/503/504; the message is ours, the detail is for logs. */
  | { kind: 'unavailable'; status: number; detail: string; retryAfterMs?: number }
  /** The server answered something that is not OXP (or beyond the bridge's bounds: then `message` says so to the user). */
  | { kind: 'protocol_error'; status: number; detail: string; message?: string }
  /**
   * No HTTP answer at all: connection refused, reset, DNS, TLS. `beforeSend`
   * is true only when the request provably never left (connect failures), the
   * one case where a retry cannot run the tool twice.
   */
  | { kind: 'unreachable'; detail: string; beforeSend: boolean }
  /** The whole-call deadline passed. */
  | { kind: 'timeout'; detail: string }
  /** The bridge did not call: the upstream's circuit breaker is open. */
  | { kind: 'circuit_open'; retryAfterMs: number };

// ------------------------------------------------- the server side of OXP

/** `ToolError` exactly as an OXP server writes it. */
export interface ToolErrorWire {
  message: string;
  developer_message?: string;
  can_retry?: boolean;
  additional_prompt_content?: string;
  retry_after_ms?: number;
}

/** What running a tool produced: the `value` of a success, or the `error` of a 200 `success:false`. */
export type ToolRunResult = { value: JsonValue } | { error: ToolErrorWire };

/** `ServerErrorResponse` (400) without `$schema`. */
export interface ServerErrorBody {
  message: string;
  developer_message?: string;
  missing_requirements?: { authorization?: { id: string; url: string; check_url?: string }[]; user_id?: boolean };
}

/** `ValidationErrorResponse` (422) without `$schema`. */
export interface ValidationErrorBody {
  message: string;
  parameter_errors?: Record<string, string>;
}

/**
 * A 503 before the tool ran: its server is not connected (yet). `can_retry`
 * and `retry_after_ms` are the ToolError hints, carried in a
 * ServerErrorResponse (which allows extra members).
 */
export interface UnavailableBody extends ServerErrorBody {
  can_retry: true;
  retry_after_ms: number;
}

/**
 * This implementation's own header on a `GET /tools` 200 (not part of OXP 1.0): how many of the tool servers behind
 * the OXP server have not listed their tools yet, so the list is not whole. Absent: every one has. The forward
 * bridge reads it to ask again within seconds rather than at its next refresh (docs/oxp-server.md, Upstreams).
 */
export const CATALOG_PENDING_HEADER = 'catalog-pending';

/** Everything an OXP server can answer to one `POST /tools/call`, before serialisation. */
export type OxpServerReply = ToolRunResult | { refused: ServerErrorBody } | { invalid: ValidationErrorBody } | { unavailable: UnavailableBody };
