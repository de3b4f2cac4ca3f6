/**
 * Configuration → the settings of each upstream. `upstreams[]` entries
 * inherit the `upstream` section for everything they do not set; without
 * `upstreams`, the `upstream` section is the one upstream, named `default`
 * (`demo` when it names no URL and the embedded demo toolkit serves).
 * Credential sources (`{env}` / `{file}`) are read here, once per load.
 */
import type { UpstreamAuth, UpstreamSettings } from './upstream-settings.js';
import { tokenEndpointProblem, type TokenExchangeSettings } from '../core/token-exchange.js';
import { effectiveAuthMode } from './auth-mode.js';
import { ConfigError } from './errors.js';
import { readValueSource } from './value-source.js';
import { boundRequirements } from './grants.js';
import type { BridgeConfig, UpstreamEntryConfig } from './types.js';
import { isLoopbackHost } from '../platform/net/loopback.js';

type TokenExchangeConfig = NonNullable<UpstreamEntryConfig['tokenExchange']>;

interface Credentials {
  apiKey?: string | undefined;
  apiKeyHeader: string;
  bearerToken?: string | undefined;
  jwtSecret?: string | undefined;
  jwtAudience?: string | undefined;
  jwtTtlSeconds: number;
}

export function authFor(c: Credentials): UpstreamAuth {
  if (c.jwtSecret)
    return { kind: 'jwt', secret: c.jwtSecret, ttlSeconds: c.jwtTtlSeconds, issuer: 'mcp-oxp-bridge', ...(c.jwtAudience ? { audience: c.jwtAudience } : {}) };
  if (c.bearerToken) return { kind: 'bearer', token: c.bearerToken };
  if (c.apiKey) return { kind: 'api_key', key: c.apiKey, header: c.apiKeyHeader };
  return { kind: 'none' };
}

/** The embedded demo toolkit's upstream: its name (logs, metrics, /readyz, the console) and what it is. */
export const DEMO_UPSTREAM = { name: 'demo', label: 'embedded demo toolkit' } as const;

/** @param demoUrl the embedded demo toolkit, used when no upstream URL is configured at all. */
export function upstreamSettings(config: BridgeConfig, env: NodeJS.ProcessEnv, userAgent: string, demoUrl?: string): UpstreamSettings[] {
  const entries = config.upstreams ?? [];
  checkTokenExchangeUse(config);
  if (entries.length === 0) return [defaultUpstream(config, env, userAgent, demoUrl)];
  const seen = new Set<string>();
  const requirements = boundRequirements(config.requirements, entries);
  return entries.map((e, i) => {
    if (seen.has(e.name)) throw new ConfigError(`upstreams: the name "${e.name}" is used twice; names must be unique`);
    seen.add(e.name);
    return entrySettings(config, e, requirements[i]!, env, userAgent);
  });
}

/** An entry's limits: its own where it sets them, else the `upstream` section's. */
function limitsOf(o: Partial<UpstreamEntryConfig>, base: BridgeConfig['upstream']): UpstreamSettings['limits'] {
  return {
    connectTimeoutMs: o.connectTimeoutMs ?? base.connectTimeoutMs,
    callTimeoutMs: o.callTimeoutMs ?? base.callTimeoutMs,
    listTimeoutMs: o.listTimeoutMs ?? base.listTimeoutMs,
    maxResponseBytes: o.maxResponseBytes ?? base.maxResponseBytes,
    maxTools: o.maxTools ?? base.maxTools,
    connections: o.connections ?? base.connections,
  };
}

/** Without `upstreams`: the `upstream` section is the one upstream, `default`; `demo` (the demo toolkit) when it names no URL. */
function defaultUpstream(config: BridgeConfig, env: NodeJS.ProcessEnv, userAgent: string, demoUrl: string | undefined): UpstreamSettings {
  const base = config.upstream;
  const url = base.url ?? demoUrl;
  if (!url) throw new ConfigError('no upstream: set --oxp-url / OXP_URL, or upstreams in the config file');
  const authorizationCheckOrigins = checkOrigins(base.authorizationCheckOrigins, 'upstream.authorizationCheckOrigins');
  return {
    ...(base.url ? { name: 'default' } : DEMO_UPSTREAM),
    url,
    auth: authFor(base),
    limits: limitsOf({}, base),
    retry: base.retry,
    circuit: base.circuit,
    requirements: config.requirements,
    authorizationCheckOrigins,
    refreshMs: config.catalog.refreshSeconds * 1000,
    policy: {},
    userAgent,
    tasks: { taskSupport: base.taskSupport, taskCallTimeoutMs: base.taskCallTimeoutMs },
    toolSettings: base.toolSettings,
    ...tokenExchangeFor(base.tokenExchange, 'upstream.tokenExchange', env),
  };
}

/** One `upstreams[]` entry over the `upstream` section, its credentials read from their sources. */
function entrySettings(
  config: BridgeConfig,
  e: UpstreamEntryConfig,
  requirements: UpstreamSettings['requirements'],
  env: NodeJS.ProcessEnv,
  userAgent: string,
): UpstreamSettings {
  const base = config.upstream;
  const what = `upstreams[${e.name}]`;
  const auth = authFor({
    apiKey: readValueSource(e.apiKey, `${what}.apiKey`, env),
    apiKeyHeader: e.apiKeyHeader ?? base.apiKeyHeader,
    bearerToken: readValueSource(e.bearerToken, `${what}.bearerToken`, env),
    jwtSecret: readValueSource(e.jwtSecret, `${what}.jwtSecret`, env),
    jwtAudience: e.jwtAudience ?? base.jwtAudience,
    jwtTtlSeconds: e.jwtTtlSeconds ?? base.jwtTtlSeconds,
  });
  const settings: UpstreamSettings = {
    name: e.name,
    url: e.url,
    auth,
    limits: limitsOf(e, base),
    retry: { ...base.retry, ...e.retry },
    circuit: { ...base.circuit, ...e.circuit },
    requirements,
    authorizationCheckOrigins: checkOrigins(e.authorizationCheckOrigins ?? base.authorizationCheckOrigins, `${what}.authorizationCheckOrigins`),
    refreshMs: config.catalog.refreshSeconds * 1000,
    policy: e.tools ?? {},
    userAgent,
    tasks: { taskSupport: e.taskSupport ?? base.taskSupport, taskCallTimeoutMs: e.taskCallTimeoutMs ?? base.taskCallTimeoutMs },
    toolSettings: e.toolSettings ?? base.toolSettings,
    ...tokenExchangeFor(e.tokenExchange, `${what}.tokenExchange`, env),
  };
  if (e.prefix) settings.prefix = e.prefix;
  return settings;
}

/**
 * Where token exchange is configured, it needs OAuth callers (their access
 * token is the subject token), and with `upstreams[]` it is set per entry:
 * the `upstream` section's would send one audience's token to every upstream.
 */
function checkTokenExchangeUse(config: BridgeConfig): void {
  const where = [
    ...(config.upstream.tokenExchange ? ['upstream.tokenExchange'] : []),
    ...(config.upstreams ?? []).filter((e) => e.tokenExchange).map((e) => `upstreams[${e.name}].tokenExchange`),
  ];
  if (where.length === 0) return;
  if (config.upstream.tokenExchange && config.upstreams?.length) {
    throw new ConfigError('upstream.tokenExchange applies to upstream.url only: with upstreams[], set tokenExchange on each entry that needs it');
  }
  const mode = effectiveAuthMode(config.auth);
  if (mode !== 'oauth' || config.transport !== 'http') {
    const without = config.transport !== 'http' ? 'over stdio' : `with auth mode "${mode}"`;
    throw new ConfigError(
      `${where.join(', ')}: token exchange needs OAuth callers (auth.mode oauth over transport http): ` +
        `it exchanges each caller's access token, and there is none ${without}`,
    );
  }
}

/** The resolved settings (client secret read), as a spread: `{}` when not configured. */
function tokenExchangeFor(source: TokenExchangeConfig | undefined, what: string, env: NodeJS.ProcessEnv): { tokenExchange?: TokenExchangeSettings } {
  if (!source) return {};
  const problem = tokenEndpointProblem(source.tokenEndpoint, isLoopbackHost);
  if (problem) throw new ConfigError(`${what}.tokenEndpoint ${problem}`);
  if (source.use === 'authorization' && !source.provider) throw new ConfigError(`${what}: use "authorization" needs provider`);
  const clientSecret = readValueSource(source.clientSecret, `${what}.clientSecret`, env);
  if (!clientSecret) throw new ConfigError(`${what}.clientSecret is empty`);
  const settings: TokenExchangeSettings = {
    tokenEndpoint: source.tokenEndpoint,
    clientId: source.clientId,
    clientSecret,
    timeoutMs: source.timeoutMs,
    use: source.use === 'authorization' ? { as: 'authorization', provider: source.provider! } : { as: 'bearer' },
    refreshSkewSeconds: source.refreshSkewSeconds,
  };
  if (source.audience) settings.audience = source.audience;
  if (source.resource) settings.resource = source.resource;
  if (source.scope) settings.scope = source.scope;
  return { tokenExchange: settings };
}

/**
 * Allowed check_url origins, normalised. Polling sends no credentials but
 * does reveal that a user is authorizing: https only, except loopback
 * (a provider emulator beside the bridge).
 */
function checkOrigins(list: readonly string[] | undefined, what: string): string[] {
  return (list ?? []).map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(`${what}: ${entry} is not an origin (scheme://host[:port])`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new ConfigError(`${what}: ${entry} must use https (http only on a loopback host such as 127.0.0.1 or localhost)`);
    }
    return url.origin;
  });
}
