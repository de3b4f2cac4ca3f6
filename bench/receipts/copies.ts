/**
 * The owned copies bench/receipts.ts weighs, each against a build with the library in its place
 * (`<name>.patch`, applied to a scratch copy of the tree), and the scenarios where the copy makes a difference:
 *
 * - `modern`, `legacy`: a plain 2026-07-28 / 2025-11-25 `tools/call` through the bridge to the bench's OXP server
 *   (the hot path);
 * - `sdk-path`: a 2025-11-25 `tools/call` with a progress token, which the SDK's endpoint answers (a stream);
 * - `reverse`: an OXP `POST /tools/call` through the oxp-server to the bench's MCP server (bench/servers/native-sdk.ts);
 * - `start-up`: the bridge with the embedded demo toolkit, exec to its first `/readyz` 200.
 *
 * A copy replaced by its library leaves this list and its patch leaves the tree (git history keeps both, and
 * bench/README.md the commit to measure them at): the node ⇄ web adapter of forward/face/pipeline.ts (its patch in
 * 8cc8763, measured in the `sdk-path` scenario, kept here for the next such copy) and the request counter of
 * platform/request-counts.ts (its patch in 4675c97).
 *
 * Copies that stay for a reason other than speed (core/mcp-encode.ts: the SDK does not export its encoder;
 * calls/audit/line-writer.ts: sonic-boom's flushSync hangs on ENOSPC; validation/linear-unique-items.ts: ajv's check
 * is quadratic) have no patch here: bench/README.md says why.
 */
export type Scenario = 'modern' | 'legacy' | 'sdk-path' | 'reverse' | 'start-up';

export interface Copy {
  /** The copy's short name, also its patch's (`<name>.patch`). */
  name: string;
  /** The module that is the copy. */
  module: string;
  patch: string;
  scenarios: Scenario[];
}

const copy = (name: string, module: string, scenarios: Scenario[]): Copy => ({ name, module, patch: `${name}.patch`, scenarios });

export const COPIES: readonly Copy[] = [
  copy('hot-classify', 'src/forward/face/hot-classify.ts', ['modern', 'legacy']),
  copy('hot-path', 'src/forward/face/hot-path.ts', ['modern', 'legacy']),
  copy('body-reader', 'src/platform/net/body-reader.ts', ['modern']),
  copy('call-abort', 'src/forward/client/call-abort.ts', ['modern']),
  copy('host-origin', 'src/platform/net/host-origin.ts', ['modern', 'start-up']),
  copy('routes', 'src/reverse/face/routes.ts, src/platform/net/json-response.ts', ['reverse', 'start-up']),
  copy('attributes', 'src/platform/telemetry/attributes.ts', ['start-up']),
];
