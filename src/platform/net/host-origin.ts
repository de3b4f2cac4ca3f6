/**
 * DNS-rebinding checks on the Host and Origin headers: an owned copy
 * (docs/design.md, "Owned copies of library code") of the MCP SDK's
 * `validateHostHeader` / `validateOriginHeader`, answering exactly as they do
 * (same verdicts, same messages; src/platform/net/host-origin.test.ts
 * compares them on a table of hostile and ordinary values). Not for the
 * calls, which they cost alike: `/healthz` and `/readyz` apply the Host rule
 * before the SDK is loaded, and importing the SDK for twenty lines puts it
 * (and zod) before the first `/readyz` 200, the largest part of a start-up
 * then (`npm run bench:receipts -- host-origin`; the figures:
 * bench/README.md#owned-copies-receipts-issue-31).
 * Delete it when the SDK exports these checks from an entry that loads
 * nothing else, or the probes no longer answer before the SDK is loaded.
 */

export type HeaderVerdict = { ok: true; hostname?: string } | { ok: false; message: string };

/** Allow-list entries are host names without port (`[::1]` bracketed), like the SDK's. */
export const LOCALHOST_NAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

export const localhostAllowedHostnames = (): string[] => [...LOCALHOST_NAMES];
export const localhostAllowedOrigins = (): string[] => [...LOCALHOST_NAMES];

/** A Host header whose host name (port ignored) is on the list; a missing or unparsable one is refused. */
export function validateHostHeader(hostHeader: string | undefined | null, allowedHostnames: readonly string[]): HeaderVerdict {
  if (!hostHeader) return { ok: false, message: 'Missing Host header' };
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return { ok: false, message: `Invalid Host header: ${hostHeader}` };
  }
  return allowedHostnames.includes(hostname) ? { ok: true, hostname } : { ok: false, message: `Invalid Host: ${hostname}` };
}

/**
 * No (or an empty) Origin passes: only browsers send one. A present one must
 * parse as a URL with a host name on the list, or have a non-web scheme
 * listed as `<scheme>://*` (browser extensions); `null` and other unparsable
 * values are refused.
 */
export function validateOriginHeader(originHeader: string | undefined | null, allowedOriginHostnames: readonly string[]): HeaderVerdict {
  if (originHeader === null || originHeader === undefined || originHeader === '') return { ok: true };
  let url: URL;
  try {
    url = new URL(originHeader);
  } catch {
    return { ok: false, message: `Invalid Origin header: ${originHeader}` };
  }
  if (url.hostname === '') return { ok: false, message: `Invalid Origin header: ${originHeader}` };
  const schemeListed = url.protocol !== 'http:' && url.protocol !== 'https:' && allowedOriginHostnames.includes(`${url.protocol}//*`);
  if (!schemeListed && !allowedOriginHostnames.includes(url.hostname)) return { ok: false, message: `Invalid Origin: ${url.hostname}` };
  return { ok: true, hostname: url.hostname };
}

/**
 * The refusal's message for a request's Host and Origin, or undefined when
 * both pass: Host first (against `allowedHosts`, when there is a list), then
 * Origin (against `allowedOrigins`, when there is one).
 */
export function hostOriginProblem(
  host: string | undefined,
  origin: string | undefined,
  allowedHosts: readonly string[] | undefined,
  allowedOrigins: readonly string[] | undefined,
): string | undefined {
  const hostVerdict = allowedHosts ? validateHostHeader(host, allowedHosts) : undefined;
  if (hostVerdict && !hostVerdict.ok) return hostVerdict.message;
  const originVerdict = allowedOrigins ? validateOriginHeader(origin, allowedOrigins) : undefined;
  return originVerdict && !originVerdict.ok ? originVerdict.message : undefined;
}
