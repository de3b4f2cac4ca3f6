/**
 * Inbound authentication on the MCP HTTP face: refusal to expose an
 * unauthenticated endpoint beyond loopback, static bearer tokens, and the
 * OAuth 2.1 resource server (JWKS, issuer, audience, expiry, algorithms,
 * scopes, WWW-Authenticate, protected-resource metadata). The client's token
 * is never forwarded upstream nor logged; its subject feeds OXP user_id.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

type KeyLike = CryptoKey;
import { ConfigError } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';

const listBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const post = (url: string, headers: Record<string, string> = {}, body = listBody) =>
  fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', ...headers }, body });

describe('exposure without authentication', () => {
  it('refuses a non-loopback address without auth, with a message saying how to fix it', async () => {
    const fixture = await startOxpFixture({ tools: demoFixtureTools() });
    try {
      await assert.rejects(startBridge(testConfig(['--oxp-url', fixture.url, '--host', '0.0.0.0']), createLogger('silent')), (e: Error) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /MCP_AUTH_TOKENS/);
        // All four OAuth settings OAuth mode needs (MCP_OAUTH_RESOURCE_URL was missing: following the message failed).
        for (const name of ['MCP_OAUTH_ISSUER', 'MCP_OAUTH_AUDIENCE', 'MCP_OAUTH_JWKS_URL', 'MCP_OAUTH_RESOURCE_URL'])
          assert.match(e.message, new RegExp(name));
        assert.match(e.message, /MCP_ALLOW_UNAUTHENTICATED=true/);
        return true;
      });
      const allowed = await startBridge(testConfig(['--oxp-url', fixture.url, '--host', '0.0.0.0', '--allow-unauthenticated', 'true']), createLogger('silent'));
      await allowed.close();
    } finally {
      await fixture.close();
    }
  });

  it('the CLI exits with status 2 and the message (as `docker run` without a token would)', () => {
    const run = spawnSync(process.execPath, cliArgs(['--host', '0.0.0.0', '--port', '0']), {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /refusing to serve MCP on 0\.0\.0\.0 without authentication/);
  });
});

describe('static bearer tokens', () => {
  const TOKEN = 'canary-inbound-token-6d1f0c9e8b7a';
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  const logs: string[] = [];
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const sink = new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) });
    bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: `other-token-000000000,${TOKEN}` }), createLogger('trace', sink));
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
  });

  it('accepts a configured token and refuses missing or wrong ones with 401 and WWW-Authenticate', async () => {
    assert.equal((await post(bridge.mcpUrl!, { authorization: `Bearer ${TOKEN}` })).status, 200);
    for (const headers of [{}, { authorization: 'Bearer wrong-token-xxxxxxxxxxxxx' }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
      const res = await post(bridge.mcpUrl!, headers);
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      await res.body?.cancel();
    }
  });

  it('never forwards the client token upstream and never logs it', async () => {
    await readMessages(
      await post(
        bridge.mcpUrl!,
        { authorization: `Bearer ${TOKEN}` },
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 1, b: 2 } } }),
      ),
    );
    assert.ok(fixture.requests.length > 0);
    for (const r of fixture.requests) assert.ok(!JSON.stringify(r.headers).includes(TOKEN) && !r.rawBody.includes(TOKEN), 'token passthrough');
    assert.ok(!logs.join('').includes(TOKEN), 'token in logs');
  });

  it('serves no protected-resource metadata outside OAuth mode', async () => {
    assert.equal((await fetch(new URL('/.well-known/oauth-protected-resource', bridge.mcpUrl))).status, 404);
  });
});

describe('OAuth 2.1 resource server', () => {
  const RESOURCE_URL = 'https://mcp.example.com/mcp';
  const ISSUER = 'https://issuer.example';
  const AUDIENCE = 'https://bridge.example/mcp';
  let privateKey: KeyLike;
  let otherKey: KeyLike;
  let jwksServer: ReturnType<typeof createServer>;
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  const seenUserIds: unknown[] = [];

  const token = (claims: Record<string, unknown> = {}, options: { key?: KeyLike; alg?: string; exp?: number | string } = {}) =>
    new SignJWT({ scope: 'tools:call', ...claims })
      .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: 'k1' })
      .setIssuer((claims.iss as string) ?? ISSUER)
      .setAudience((claims.aud as string) ?? AUDIENCE)
      .setSubject('user-7')
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '5m')
      .sign(options.key ?? privateKey);

  before(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
    const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    fixture = await startOxpFixture({
      tools: [
        {
          id: 'Who.Am',
          name: 'Who_Am',
          version: '1.0.0',
          description: 'Returns the user id it received',
          input_schema: { type: 'object' },
          output_schema: { type: 'object' },
          requirements: { user_id: true },
          handler: (req) => {
            seenUserIds.push(req.context?.['user_id']);
            return { value: { user: req.context?.['user_id'] ?? null } };
          },
        },
      ],
    });
    const config = testConfig([
      '--oxp-url',
      fixture.url,
      '--oauth-issuer',
      ISSUER,
      '--oauth-audience',
      AUDIENCE,
      '--oauth-jwks-url',
      jwksUrl,
      '--oauth-resource-url',
      RESOURCE_URL,
      '--user-id',
      'configured-fallback',
    ]);
    config.auth.oauth!.requiredScopes = ['tools:call'];
    bridge = await startBridge(config, createLogger('silent'));
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
    jwksServer.close();
  });

  it('accepts a valid token; its subject becomes the OXP user_id', async () => {
    const res = await post(
      bridge.mcpUrl!,
      { authorization: `Bearer ${await token()}` },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Who_Am', arguments: {} } }),
    );
    assert.equal(res.status, 200);
    const [msg] = await readMessages(res);
    assert.deepEqual((msg!.result as { structuredContent: unknown }).structuredContent, { user: 'user-7' });
  });

  it('refuses wrong, expired, wrong-audience, wrong-issuer, alg:none and HS256 tokens with 401 and resource_metadata', async () => {
    const unsigned = (() => {
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: 'user-7', exp: now + 300, scope: 'tools:call' })}.`;
    })();
    const hs256 = await new SignJWT({ scope: 'tools:call' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('user-7')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-guessable-shared-secret-value!'));
    const bad = [
      await token({}, { key: otherKey }),
      await token({}, { exp: Math.floor(Date.now() / 1000) - 60 }),
      await token({ aud: 'https://someone-else.example' }),
      await token({ iss: 'https://evil.example' }),
      unsigned,
      hs256,
      'not-a-jwt',
    ];
    for (const t of bad) {
      const res = await post(bridge.mcpUrl!, { authorization: `Bearer ${t}` });
      assert.equal(res.status, 401, t.slice(0, 40));
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer /);
      // The configured resource's origin, never the request's Host.
      assert.match(challenge, /resource_metadata="https:\/\/mcp\.example\.com\/\.well-known\/oauth-protected-resource"/);
      assert.match(challenge, /error="invalid_token"/);
      await res.body?.cancel();
    }
    const none = await post(bridge.mcpUrl!);
    assert.equal(none.status, 401);
    assert.doesNotMatch(none.headers.get('www-authenticate') ?? '', /error=/, 'no error code when no credentials were sent');
    await none.body?.cancel();
  });

  it('a token without the required scope gets 403 insufficient_scope', async () => {
    const res = await post(bridge.mcpUrl!, { authorization: `Bearer ${await token({ scope: 'other' })}` });
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope", error_description="Missing scope: tools:call", scope="tools:call"/);
    await res.body?.cancel();
  });

  it('publishes RFC 9728 protected-resource metadata', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(new URL(path, bridge.mcpUrl));
      assert.equal(res.status, 200);
      const body = (await res.json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
      assert.equal(body.resource, RESOURCE_URL);
      assert.deepEqual(body.authorization_servers, [ISSUER]);
      assert.deepEqual(body.scopes_supported, ['tools:call']);
    }
  });
});
