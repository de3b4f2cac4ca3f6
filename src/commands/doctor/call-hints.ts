/**
 * What to do about a failed `doctor --call`, by the kind the bridge put in the result's `_meta`
 * (docs/translation.md's error taxonomy): only bad arguments are the caller's to fix.
 */
import { ERROR_META_KEY } from '../../core/mcp-wire.js';
import { isPlainObject } from '../../core/json.js';
import { CREDENTIALS_HINT } from './credentials.js';

const HINTS: Record<string, string> = {
  invalid_input: "check the arguments (--args) against the tool's input schema",
  tool_error: 'the tool itself reported the failure (its message is above): act on what it says; the bridge and the tool server work',
  tool_crashed:
    "the tool's code failed on the tool server (HTTP 500): its cause is in the tool server's logs; the bridge and the server's other tools are not affected",
  upstream_auth_failed: CREDENTIALS_HINT,
  upstream_unavailable: 'the tool server (or a proxy in front of it) said it is unavailable: check it, then try again',
  upstream_unreachable: 'the bridge could not reach the tool server: check that it is running and its URL',
  upstream_timeout: 'the tool server did not answer within upstream.callTimeoutMs: check its load, or raise the timeout',
  circuit_open: 'the bridge paused calls after repeated connection failures or timeouts: check the tool server; calls resume on their own',
  upstream_protocol_error: 'the tool server answered something that is not OXP: check that the URL is an OXP server',
  requirements_missing: 'the tool needs a secret, user id or authorization the bridge was not given: see the message above',
  precondition_failed: 'the tool server refused the call before running it: see the message above',
};

export function callFailureHint(meta: unknown): string {
  const error = isPlainObject(meta) ? meta[ERROR_META_KEY] : undefined;
  const kind = isPlainObject(error) && typeof error.kind === 'string' ? error.kind : undefined;
  return (kind && HINTS[kind]) ?? 'see the message above';
}
