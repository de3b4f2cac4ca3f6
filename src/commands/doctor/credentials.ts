/**
 * What `doctor` says when a tool server refuses the bridge's credentials. OXP's own sources disagree on how an API key
 * travels: the OXP security page says an `OXP-API-Key` header (what OXP_API_KEY sends), while the official clients
 * (oxp-python, oxp-go) and the OpenAPI document send it as `Authorization: Bearer` (what OXP_BEARER_TOKEN sends). A
 * server built one way answers 401 to the other, so doctor names both settings and, for a configured bridge, tries the
 * same secret the other way once to say which one the server takes.
 */
import type { UpstreamSettings } from '../../forward/bridge/upstream.js';
import { OxpClient } from '../../forward/client/client.js';
import type { UpstreamAuth } from '../../forward/client/upstream-auth.js';

/** Whether a catalog failure (the bridge's own words, as /readyz serves them) is a refusal of the bridge's credentials. */
export function isCredentialsRefusal(reason: string | undefined): boolean {
  return reason !== undefined && reason.includes("refused the bridge's credentials");
}

/** The hint for a refusal, knowing nothing of the configuration (a running bridge checked with --url). */
export const CREDENTIALS_HINT =
  'the tool server refused the credentials the bridge sends. OXP_API_KEY is sent as an OXP-API-Key header (OXP_API_KEY_HEADER renames it); OXP_BEARER_TOKEN as Authorization: Bearer, which is how the official OXP clients (oxp-python, oxp-go) send an API key. Check the value, and try the other setting';

/** The same secret the other way: an API key as a bearer token, a bearer token as an API key header. */
function otherStyle(auth: UpstreamAuth): { auth: UpstreamAuth; setting: string; instead: string } | undefined {
  if (auth.kind === 'api_key') return { auth: { kind: 'bearer', token: auth.key }, setting: 'OXP_BEARER_TOKEN (upstream.bearerToken)', instead: 'OXP_API_KEY' };
  if (auth.kind === 'bearer')
    return { auth: { kind: 'api_key', key: auth.token, header: 'OXP-API-Key' }, setting: 'OXP_API_KEY (upstream.apiKey)', instead: 'OXP_BEARER_TOKEN' };
  return undefined;
}

/**
 * The hint for a configured upstream whose credentials were refused: one GET /tools with the same secret sent the
 * other way (to the same upstream, which holds the secret already), and what to set if that one is accepted.
 */
export async function credentialsAdvice(settings: UpstreamSettings): Promise<string> {
  if (settings.auth.kind === 'none')
    return 'the tool server wants credentials and the bridge sends none: set OXP_API_KEY (sent as an OXP-API-Key header) or OXP_BEARER_TOKEN (sent as Authorization: Bearer, as the official OXP clients send an API key)';
  const other = otherStyle(settings.auth);
  if (!other) return "the tool server refused the JWT the bridge mints: check OXP_JWT_SECRET and OXP_JWT_AUDIENCE against the server's";
  const client = new OxpClient({ ...settings.limits, baseUrl: settings.url, auth: other.auth, userAgent: settings.userAgent });
  try {
    await client.listTools();
    return `the tool server accepts the same secret sent the other way: set it as ${other.setting} instead of ${other.instead}`;
  } catch {
    return `${CREDENTIALS_HINT}; sent the other way (as ${other.setting} would) it is refused too, so the value itself is wrong`;
  } finally {
    await client.destroy();
  }
}
