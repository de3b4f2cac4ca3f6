/**
 * Token exchange (RFC 8693) against a real authorization server
 * (oidc-provider, test/helpers/oauth-server.ts): the exchanged token is the
 * AS's, for the upstream's audience, for the same subject, acted by the
 * bridge; the cache spares a second exchange and respects both expiries;
 * concurrent calls share one exchange; refusals ask the person to sign in
 * again; an unreachable, slow, redirecting or oversized token service is
 * "unavailable"; no token, secret or AS text reaches a log line or a message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { createLogger } from '../../src/platform/log.js';
import { TokenExchanger, type ExchangeResult, type TokenExchangeSettings } from '../../src/forward/client/token-exchanger.js';
import { startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';

const BRIDGE_AUDIENCE = 'https://bridge.example/mcp';
const UPSTREAM_AUDIENCE = 'https://tools.example/oxp';
// A VSCHAR secret that needs form-urlencoding (RFC 6749 §2.3.1): ':' '+' '%' '/' '=' and a space.
const CLIENT_SECRET = 'canary-client-secret: +%/=7f3a9';
const ONE_CALL = { timeoutMs: 5_000 };

describe('token exchange against a real authorization server', () => {
  let as: OAuthServer;
  const logs: string[] = [];
  const log = createLogger('trace', new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) }));
  /** Every token and message the tests saw: the canary checks none leaks. */
  const seenTokens: string[] = [];
  const seenMessages: string[] = [];
  const settings = (extra: Partial<TokenExchangeSettings> = {}): TokenExchangeSettings => ({
    tokenEndpoint: as.tokenEndpoint,
    clientId: 'mcp-bridge',
    clientSecret: CLIENT_SECRET,
    audience: UPSTREAM_AUDIENCE,
    use: { as: 'bearer' },
    ...ONE_CALL,
    ...extra,
  });
  const userToken = async (sub: string, options?: Parameters<OAuthServer['mintUserToken']>[1]) => {
    const token = await as.mintUserToken(sub, options);
    seenTokens.push(token);
    return token;
  };
  const record = (result: ExchangeResult) => {
    if (result.ok) seenTokens.push(result.token);
    else seenMessages.push(result.message);
    return result;
  };

  before(async () => {
    as = await startOAuthServer({
      bridgeAudience: BRIDGE_AUDIENCE,
      bridgeClient: { id: 'mcp-bridge', secret: CLIENT_SECRET },
      upstreamAudiences: [UPSTREAM_AUDIENCE],
    });
  });
  after(() => as.close());

  it("exchanges the caller's token for one the AS signed for the upstream, same subject, the bridge as actor", async () => {
    const exchanger = new TokenExchanger(settings(), { log });
    const subject = await userToken('user-1');
    const result = record(await exchanger.exchange(subject, 'user-1', 'tools'));
    assert.ok(result.ok, JSON.stringify(result));
    assert.notEqual(result.token, subject);
    const { payload } = await jwtVerify(result.token, createRemoteJWKSet(new URL(as.jwksUrl)), { issuer: as.issuer, audience: UPSTREAM_AUDIENCE });
    assert.equal(payload.sub, 'user-1');
    assert.deepEqual(payload.act, { sub: 'mcp-bridge' });
    assert.ok(Math.abs(result.expiresAt - payload.exp! * 1000) < 5_000, 'expiresAt follows expires_in');
    // The subject token itself is not accepted for the upstream.
    await assert.rejects(jwtVerify(subject, createRemoteJWKSet(new URL(as.jwksUrl)), { audience: UPSTREAM_AUDIENCE }));
  });

  it('a second call is served from the cache, also with a refreshed subject token of the same subject', async () => {
    const exchanger = new TokenExchanger(settings(), { log });
    const before = as.exchangeRequests;
    const first = record(await exchanger.exchange(await userToken('user-2'), 'user-2', 'tools'));
    const second = record(await exchanger.exchange(await userToken('user-2'), 'user-2', 'tools'));
    assert.ok(first.ok && second.ok);
    assert.equal(second.token, first.token);
    assert.equal(as.exchangeRequests - before, 1);
    // Another subject, or another upstream name, is another entry.
    record(await exchanger.exchange(await userToken('user-3'), 'user-3', 'tools'));
    record(await exchanger.exchange(await userToken('user-2'), 'user-2', 'other-tools'));
    assert.equal(as.exchangeRequests - before, 3);
  });

  it('concurrent calls for one subject make one exchange', async () => {
    const exchanger = new TokenExchanger(settings(), { log });
    const before = as.exchangeRequests;
    const subject = await userToken('user-4');
    const results = await Promise.all(Array.from({ length: 8 }, () => exchanger.exchange(subject, 'user-4', 'tools')));
    results.forEach(record);
    assert.equal(as.exchangeRequests - before, 1);
    assert.equal(new Set(results.map((r) => (r.ok ? r.token : 'failed'))).size, 1);
    assert.ok(results[0]!.ok);
  });

  it("exchanges again once the token is within the skew of its expiry, or of the subject token's", async () => {
    let clock = Date.now();
    const exchanger = new TokenExchanger(settings(), { log, now: () => clock, refreshSkewSeconds: 30 });
    const before = as.exchangeRequests;
    const subject = await userToken('user-5');
    const first = record(await exchanger.exchange(subject, 'user-5', 'tools'));
    assert.ok(first.ok);
    clock = first.expiresAt - 31_000;
    assert.equal(record(await exchanger.exchange(subject, 'user-5', 'tools')).ok, true);
    assert.equal(as.exchangeRequests - before, 1, 'still fresh 31 s before expiry');
    clock = first.expiresAt - 29_000;
    assert.equal(record(await exchanger.exchange(subject, 'user-5', 'tools')).ok, true);
    assert.equal(as.exchangeRequests - before, 2, 'within the skew: exchanged again');

    // A subject token that expires in 40 s bounds the entry (to 10 s with the skew), whatever the exchanged token's own 300 s.
    clock = Date.now();
    const shortLived = await userToken('user-6', { expiresInSeconds: 40 });
    assert.equal(record(await exchanger.exchange(shortLived, 'user-6', 'tools')).ok, true);
    clock += 5_000;
    record(await exchanger.exchange(shortLived, 'user-6', 'tools'));
    assert.equal(as.exchangeRequests - before, 3);
    clock += 6_000;
    record(await exchanger.exchange(await userToken('user-6'), 'user-6', 'tools'));
    assert.equal(as.exchangeRequests - before, 4, 'the entry did not outlive its subject token');
  });

  it('refuses a subject token for another audience, an expired one, and a target the AS does not serve: sign in again', async () => {
    const cases = [
      { token: await userToken('user-7', { audience: UPSTREAM_AUDIENCE }), settings: settings() },
      { token: await userToken('user-7', { expiredSecondsAgo: 60 }), settings: settings() },
      { token: await userToken('user-7'), settings: settings({ audience: 'https://elsewhere.example/' }) },
    ];
    for (const c of cases) {
      const exchanger = new TokenExchanger(c.settings, { log });
      const result = record(await exchanger.exchange(c.token, 'user-7', 'tools'));
      assert.ok(!result.ok);
      assert.equal(result.kind, 'refused');
      assert.equal(result.status, 400);
      assert.match(result.message, /^Your sign-in could not be used for tools: .*Sign in again/);
      assert.equal(exchanger.size, 0, 'a failure is not cached');
    }
  });

  it("a wrong client secret is the operator's problem: unavailable, 401, a warning without the secret", async () => {
    const exchanger = new TokenExchanger(settings({ clientSecret: 'canary-wrong-secret-1b2c' }), { log });
    const result = record(await exchanger.exchange(await userToken('user-8'), 'user-8', 'tools'));
    assert.ok(!result.ok);
    assert.deepEqual([result.kind, result.status], ['unavailable', 401]);
    assert.match(result.message, /refused the bridge's own client credentials.*operator/);
    assert.ok(logs.some((l) => l.includes('"level":40') && l.includes('client credentials')));
    assert.ok(!logs.join('').includes('canary-wrong-secret-1b2c'));
  });

  it('an unreachable token service is unavailable: try again later', async () => {
    const port = await freePort();
    const exchanger = new TokenExchanger(settings({ tokenEndpoint: `http://127.0.0.1:${port}/token` }), { log });
    const result = record(await exchanger.exchange(await userToken('user-9'), 'user-9', 'tools'));
    assert.ok(!result.ok);
    assert.equal(result.kind, 'unavailable');
    assert.equal(result.message, 'Could not get access to tools: the token service could not be reached. Try again later.');
  });

  describe('a token service that misbehaves', () => {
    let silent: TcpServer;
    let odd: Server;
    let oddUrl: string;
    before(async () => {
      // Accepts connections and never answers.
      silent = createTcpServer(() => undefined);
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      odd = createHttpServer((req, res) => {
        if (req.url === '/redirect') return void res.writeHead(307, { location: as.tokenEndpoint }).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'x'.repeat(100_000), token_type: 'Bearer' }));
      });
      await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
      oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    });
    after(() => {
      silent.close();
      odd.closeAllConnections();
      odd.close();
    });

    it('silent past the timeout, redirecting, or answering too much: unavailable, nothing followed', async () => {
      const before = as.exchangeRequests;
      const subject = await userToken('user-10');
      const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/token`;
      const expectations: [string, number, RegExp][] = [
        [silentUrl, 300, /did not answer within 300 ms/],
        [`${oddUrl}/redirect`, 5_000, /answered HTTP 307 \(redirects are not followed\)/],
        [`${oddUrl}/big`, 5_000, /answered with more than 65536 bytes/],
      ];
      for (const [tokenEndpoint, timeoutMs, reason] of expectations) {
        const started = Date.now();
        const result = record(await new TokenExchanger(settings({ tokenEndpoint, timeoutMs }), { log }).exchange(subject, 'user-10', 'tools'));
        assert.ok(!result.ok);
        assert.equal(result.kind, 'unavailable');
        assert.match(result.message, reason);
        assert.ok(Date.now() - started < 4_000);
      }
      assert.equal(as.exchangeRequests, before, 'the redirect was not followed to the real token endpoint');
    });
  });

  it('a caller that gives up gets a rejection; the exchange finishes and serves the next caller', async () => {
    const exchanger = new TokenExchanger(settings(), { log });
    const before = as.exchangeRequests;
    const subject = await userToken('user-11');
    const controller = new AbortController();
    const given = exchanger.exchange(subject, 'user-11', 'tools', controller.signal);
    controller.abort();
    await assert.rejects(given, /cancelled/);
    assert.equal(record(await exchanger.exchange(subject, 'user-11', 'tools')).ok, true);
    assert.equal(as.exchangeRequests - before, 1);
  });

  it('refuses a plain-http token endpoint beyond loopback', () => {
    assert.throws(() => new TokenExchanger(settings({ tokenEndpoint: 'http://as.example/token' })), /https/);
  });

  it('canary: no subject token, exchanged token, client secret or AS text in any log line or message', () => {
    assert.ok(seenTokens.length > 10 && seenMessages.length > 5 && logs.length > 10);
    const text = `${logs.join('')}\n${seenMessages.join('\n')}`;
    for (const token of seenTokens) assert.ok(!text.includes(token), 'a token leaked');
    for (const secret of [CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), 'canary-client-secret']) assert.ok(!text.includes(secret), 'the secret leaked');
    assert.ok(!text.includes('Basic '), 'the client authentication header leaked');
    assert.doesNotMatch(text, /grant request is invalid|not one this server issues|client authentication failed/, "the AS's own text leaked");
  });
});

async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
