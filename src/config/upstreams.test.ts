import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, type LoadedConfig } from './load.js';
import { upstreamSettings } from './upstreams.js';

const OAUTH = `
auth:
  oauth: { issuer: https://as.example, audience: https://bridge.example/mcp, jwksUrl: https://as.example/jwks, resourceUrl: https://bridge.example/mcp }
`;
const EXCHANGE = `{ tokenEndpoint: https://as.example/token, clientId: mcp-bridge, clientSecret: { env: TOKEX_SECRET }, audience: https://tools.example, use: bearer }`;
const ENV = { TOKEX_SECRET: 'the-client-secret' };

function settingsOf(yaml: string, env: Record<string, string> = ENV) {
  const path = join(mkdtempSync(join(tmpdir(), 'bridge-config-')), 'bridge.yaml');
  writeFileSync(path, yaml);
  const { config } = loadConfig(['--config', path], env) as LoadedConfig;
  return upstreamSettings(config, env, 'test');
}

describe('upstream token exchange settings', () => {
  it('resolves upstream.tokenExchange, secret read and defaults filled, onto the one upstream', () => {
    const [one] = settingsOf(`${OAUTH}upstream:\n  url: https://tools.example\n  tokenExchange: ${EXCHANGE}\n`);
    assert.deepEqual(one!.tokenExchange, {
      tokenEndpoint: 'https://as.example/token',
      clientId: 'mcp-bridge',
      clientSecret: 'the-client-secret',
      audience: 'https://tools.example',
      timeoutMs: 5000,
      use: { as: 'bearer' },
      refreshSkewSeconds: 30,
    });
  });

  it('resolves each upstreams[] entry on its own; an entry without it has none', () => {
    const yaml = `${OAUTH}upstreams:
  - { name: github, url: https://gh.example, tokenExchange: { tokenEndpoint: "http://127.0.0.1:9/token", clientId: b, clientSecret: { env: TOKEX_SECRET }, resource: "https://gh.example/", scope: "repo read:user", use: authorization, provider: github, timeoutMs: 800 } }
  - { name: plain, url: https://plain.example }
`;
    const [github, plain] = settingsOf(yaml);
    assert.deepEqual(github!.tokenExchange?.use, { as: 'authorization', provider: 'github' });
    assert.equal(github!.tokenExchange?.resource, 'https://gh.example/');
    assert.equal(github!.tokenExchange?.scope, 'repo read:user');
    assert.equal(github!.tokenExchange?.timeoutMs, 800);
    assert.equal(plain!.tokenExchange, undefined);
    assert.equal('tokenExchange' in plain!, false);
  });

  it('refuses it without OAuth callers, over stdio, beside upstreams[], and with a bad endpoint, missing provider or secret', () => {
    const up = (exchange: string) => `upstream:\n  url: https://tools.example\n  tokenExchange: ${exchange}\n`;
    const cases: [string, Record<string, string>, RegExp][] = [
      [up(EXCHANGE), ENV, /upstream\.tokenExchange: token exchange needs OAuth callers .*with auth mode "none"/],
      [`auth: { tokens: ["a-static-token-of-16+"] }\n${up(EXCHANGE)}`, ENV, /with auth mode "bearer"/],
      [`transport: stdio\n${OAUTH}${up(EXCHANGE)}`, ENV, /there is none over stdio/],
      [`${OAUTH}${up(EXCHANGE)}upstreams:\n  - { name: a, url: https://a.example }\n`, ENV, /applies to upstream\.url only/],
      [`${OAUTH}${up(EXCHANGE.replace('https://as.example/token', 'http://as.example/token'))}`, ENV, /tokenEndpoint must use https/],
      [`${OAUTH}${up(EXCHANGE)}`, {}, /clientSecret: environment variable TOKEX_SECRET is not set/],
      [`${OAUTH}${up(EXCHANGE.replace('use: bearer', 'use: authorization'))}`, ENV, /tokenExchange.*provider/],
      [`${OAUTH}${up(EXCHANGE.replace('use: bearer', 'use: cookie'))}`, ENV, /use .*must be one of: bearer, authorization/],
    ];
    for (const [yaml, env, message] of cases) {
      assert.throws(
        () => settingsOf(yaml, env),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
        `${String(message)} for\n${yaml}`,
      );
    }
  });
});
