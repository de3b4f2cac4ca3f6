/**
 * Authorization links from an untrusted tool server, vetted before they go
 * anywhere (pure; `URL` is the WHATWG parser, no I/O).
 *
 * Invariants:
 * - a link that reaches a client (an elicitation URL, a challenge in an
 *   error text or in OXP `missing_requirements`) is an absolute http(s) URL
 *   of bounded length: never `javascript:`, `data:`, `file:`...;
 * - the bridge itself fetches a check_url only on the upstream's own origin
 *   or on an origin the operator allowed; any other check_url is dropped
 *   (neither polled nor shown), so a tool server cannot aim the bridge at
 *   another service (blind SSRF).
 */
import type { AuthorizationChallenge, OxpCallOutcome } from './oxp-wire.js';

/** Longest authorization link passed on (OAuth URLs with PKCE and state are well below). */
export const MAX_LINK_LENGTH = 8192;

/** Why `url` must not reach a client, or undefined when it may. The text names the problem, never the URL. */
export function linkProblem(url: string): string | undefined {
  if (url.length > MAX_LINK_LENGTH) return `is longer than ${MAX_LINK_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return undefined;
  const scheme = /^[a-z][a-z0-9+.-]{0,30}:$/.test(parsed.protocol) ? parsed.protocol : 'an unknown scheme';
  return `uses ${scheme} instead of https`;
}

/** Whether the bridge may poll `checkUrl` for an upstream at `upstreamUrl` (`allowedOrigins` already normalised). */
export function mayPollCheckUrl(checkUrl: string, upstreamUrl: string, allowedOrigins: readonly string[]): boolean {
  if (linkProblem(checkUrl) !== undefined) return false;
  const origin = new URL(checkUrl).origin;
  return origin === new URL(upstreamUrl).origin || allowedOrigins.includes(origin);
}

export interface LinkPolicy {
  upstreamUrl: string;
  allowedOrigins: readonly string[];
}

export type VettedOutcome =
  /** `ignoredCheckOrigins`: origins of check_urls dropped because they are neither the upstream's nor allowed. */
  { ok: true; outcome: OxpCallOutcome; ignoredCheckOrigins: string[] } | { ok: false; message: string };

/** An outcome's authorization challenges, vetted: a bad link refuses the whole outcome; a foreign check_url is dropped. */
export function vetChallenges(outcome: OxpCallOutcome, policy: LinkPolicy): VettedOutcome {
  if (outcome.kind !== 'requirements_missing' || outcome.authorization.length === 0) return { ok: true, outcome, ignoredCheckOrigins: [] };
  const ignoredCheckOrigins: string[] = [];
  const challenges: AuthorizationChallenge[] = [];
  for (const challenge of outcome.authorization) {
    const problem = linkProblem(challenge.url);
    if (problem) return { ok: false, message: refusal('an authorization link', problem) };
    if (challenge.checkUrl === undefined) {
      challenges.push(challenge);
      continue;
    }
    const checkProblem = linkProblem(challenge.checkUrl);
    if (checkProblem) return { ok: false, message: refusal('an authorization check URL', checkProblem) };
    if (mayPollCheckUrl(challenge.checkUrl, policy.upstreamUrl, policy.allowedOrigins)) {
      challenges.push(challenge);
      continue;
    }
    ignoredCheckOrigins.push(new URL(challenge.checkUrl).origin);
    challenges.push({ id: challenge.id, url: challenge.url });
  }
  if (ignoredCheckOrigins.length === 0) return { ok: true, outcome, ignoredCheckOrigins };
  return { ok: true, outcome: { ...outcome, authorization: challenges }, ignoredCheckOrigins };
}

/** The text of a refused link, for MCP isError results and OXP error bodies alike. */
export function refusal(what: string, problem: string): string {
  return `The tool server sent ${what} that ${problem}; the bridge does not pass such links on, so the tool cannot be authorized this way. Report this to the tool's provider.`;
}
