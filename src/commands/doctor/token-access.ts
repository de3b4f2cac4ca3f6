/**
 * `doctor --token`: who a token is, and what that caller may see and call.
 *
 * - Configured bridge (no --url): the token is resolved as the bridge would
 *   resolve it (InboundAuth with the configuration's tokens, or an OAuth JWT
 *   verified against the issuer's keys, fetched from auth.oauth.jwksUrl
 *   first so that keys out of reach are told apart from a bad token), then
 *   every tool of the catalog is listed with the access rule that decides
 *   for that principal (the bridge's own policy, bridge.access).
 * - Running bridge (--url): the bridge says who the token is only through
 *   its console (`/console/api/overview`, `caller`); when it does not, doctor
 *   says so and names nobody.
 *
 * The token itself is never printed: only what the bridge makes of it.
 */
import type { JWTVerifyGetKey } from 'jose';
import type { BridgeConfig } from '../../config/types.js';
import type { AccessDecision } from '../../core/access-policy.js';
import { isPlainObject } from '../../core/json.js';
import { anonymousPrincipal, type Principal } from '../../core/principal.js';
import { shownName } from '../../console/redact.js';
import { InboundAuth, inboundAuthConfig } from '../../forward/face/inbound-auth.js';
import type { RunningBridge } from '../forward.js';
import { PROBE_TIMEOUT_MS } from './mcp-probe.js';
import type { StepReport } from './report.js';

/** Who the token is: `principal` undefined when the bridge does not authenticate (anonymous); undefined when refused. */
export type TokenCaller = { principal: Principal | undefined; authMode: string };

const WHAT = 'token';

/** A principal in one line: its name (cleaned: it may come from a token's claims), kind and groups. */
export function describePrincipal(p: { name: string; kind: string; groups: readonly string[] }): string {
  return `${shownName(p.name, 128)} (${p.kind}${p.groups.length ? `; groups ${p.groups.join(', ')}` : ''})`;
}

/** The token resolved as the configured bridge would; a failed step (and undefined) when it would refuse it. */
export async function resolveToken(report: StepReport, config: BridgeConfig, env: NodeJS.ProcessEnv, token: string): Promise<TokenCaller | undefined> {
  const authConfig = inboundAuthConfig(config);
  if (authConfig.mode === 'none' || config.transport === 'stdio') {
    const why = config.transport === 'stdio' ? 'stdio transport' : 'auth mode none';
    report.pass(`${WHAT}: not checked (${why}: every caller is the anonymous principal ${describePrincipal(anonymousPrincipal(config.auth.anonymous))})`);
    return { principal: undefined, authMode: 'none' };
  }
  let keys: JWTVerifyGetKey | undefined;
  if (authConfig.mode === 'oauth') {
    const fetched = await issuerKeys(authConfig.oauth!.jwksUrl);
    if (typeof fetched === 'string') {
      report.fail(
        WHAT,
        `cannot verify the OAuth access token here: the issuer's keys (${authConfig.oauth!.jwksUrl}) could not be read: ${fetched}`,
        'the bridge verifies tokens against auth.oauth.jwksUrl: run doctor where that URL is reachable',
      );
      return undefined;
    }
    keys = fetched;
  }
  const outcome = await new InboundAuth(authConfig, keys, env).authenticate(`Bearer ${token}`);
  if (outcome.ok) {
    report.pass(`${WHAT}: principal ${describePrincipal(outcome.principal!)}`);
    return { principal: outcome.principal, authMode: authConfig.mode };
  }
  if (authConfig.mode === 'bearer')
    report.fail(
      WHAT,
      'the bridge would refuse it: it is none of the configured tokens',
      'check the value against auth.tokens, MCP_AUTH_TOKENS or auth.tokensFile',
    );
  else {
    const oauth = authConfig.oauth!;
    report.fail(
      WHAT,
      `the bridge would refuse it: ${refusalReason(outcome.body)}`,
      `it must be an unexpired JWT access token from ${oauth.issuer} for audience ${oauth.audience}, with a user claim (${oauth.claims?.user ?? 'sub'})${oauth.requiredScopes?.length ? ` and the scopes ${oauth.requiredScopes.join(' ')}` : ''}`,
    );
  }
  return undefined;
}

/** The issuer's key set, read once as the bridge would read it; the reason as text when it cannot be. */
async function issuerKeys(jwksUrl: string): Promise<JWTVerifyGetKey | string> {
  try {
    const res = await fetch(jwksUrl, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) return `HTTP ${res.status}`;
    const jwks: unknown = await res.json();
    if (!isPlainObject(jwks) || !Array.isArray(jwks.keys)) return 'the answer is not a JSON Web Key Set';
    const { createLocalJWKSet } = await import('jose');
    return createLocalJWKSet(jwks as unknown as Parameters<typeof createLocalJWKSet>[0]);
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error instanceof Error ? error.message : String(error)}${cause}`;
  }
}

/** The refusal's own words (the JSON-RPC error the bridge would answer). */
function refusalReason(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const message = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error.message : undefined;
    return typeof message === 'string' ? message : 'refused';
  } catch {
    return 'refused';
  }
}

/** What the caller may see and call: one summary step, then every tool with the rule (or default) that decides. */
export async function listAccess(report: StepReport, bridge: RunningBridge, caller: TokenCaller): Promise<void> {
  const snapshot = await bridge.bridge.upstreams.snapshot().catch(() => undefined);
  if (!snapshot) return report.skip('what this caller may see and call', 'no upstream catalog loaded');
  const access = bridge.bridge.access;
  const principal = access.principalOf(caller.principal);
  const entries = snapshot.catalog.entries;
  const decisions = access.decideEach(entries, principal);
  const allowed = decisions.filter((d) => d.allow).length;
  const fallback = access.config.default ?? 'allow';
  report.pass(`${shownName(principal.name, 128)} may see and call ${allowed} of ${entries.length} tools${access.active ? '' : ' (no access rules)'}`);
  entries.forEach((entry, i) => report.note(accessLine(entry.name, decisions[i]!, fallback)));
}

/** `✓ Calculator_Add (rule eng-all)`, `✗ Admin_Wipe (denied by rule no-admin)`; a rule without id by its place. */
function accessLine(tool: string, decision: AccessDecision, fallback: string): string {
  const rule = decision.rule ? `rule ${decision.rule.id ?? `access.rules[${decision.rule.index}]`}` : `access.default: ${fallback}`;
  return decision.allow ? `✓ ${tool} (${rule})` : `✗ ${tool} (denied by ${rule})`;
}

/** --url: the principal the running bridge names for the token, from its console's overview; nobody invented. */
export async function reportRunningCaller(report: StepReport, mcpUrl: string, token: string): Promise<void> {
  const overview = new URL('/console/api/overview', mcpUrl).href;
  let caller: unknown;
  let status = 0;
  try {
    const res = await fetch(overview, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    status = res.status;
    caller = res.ok && res.headers.get('content-type')?.includes('json') ? ((await res.json()) as { caller?: unknown }).caller : undefined;
  } catch {
    caller = undefined;
  }
  if (isPlainObject(caller) && typeof caller.name === 'string' && typeof caller.kind === 'string' && Array.isArray(caller.groups))
    return report.pass(
      `${WHAT}: principal ${describePrincipal({ name: caller.name, kind: caller.kind, groups: caller.groups.map(String) })}, as the bridge names it`,
    );
  if (status === 401 || status === 403) return; // the MCP checks below say the token was refused, with what to do
  report.skip(`${WHAT}: which principal`, `the bridge does not say (its console, ${overview}, is off or does not name the caller)`);
}
