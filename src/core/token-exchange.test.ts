import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCESS_TOKEN_TYPE,
  basicAuthorization,
  exchangeCacheKey,
  exchangeRequestBody,
  failureResult,
  jwtExpiryMs,
  parseExchangeResponse,
  tokenEndpointProblem,
  TOKEN_EXCHANGE_GRANT,
  UNSTATED_LIFETIME_SECONDS,
  type TokenExchangeSettings,
} from './token-exchange.js';

const settings: TokenExchangeSettings = {
  tokenEndpoint: 'https://as.example/token',
  clientId: 'bridge',
  clientSecret: 'secret',
  audience: 'https://up.example',
  scope: 'read write',
  timeoutMs: 5000,
  use: { as: 'bearer' },
};
const SUBJECT = 'subject.token.value';
const ok = (fields: Record<string, unknown>) =>
  JSON.stringify({ access_token: 'exchanged', token_type: 'Bearer', issued_token_type: ACCESS_TOKEN_TYPE, expires_in: 120, ...fields });

describe('token exchange request', () => {
  it('is an RFC 8693 form: grant, subject token and its type, access token requested, the target when set', () => {
    const form = new URLSearchParams(exchangeRequestBody(settings, SUBJECT));
    assert.deepEqual(Object.fromEntries(form), {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: SUBJECT,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      audience: 'https://up.example',
      scope: 'read write',
    });
    assert.equal(
      new URLSearchParams(exchangeRequestBody({ ...settings, audience: undefined, resource: 'https://r.example/' }, SUBJECT)).get('resource'),
      'https://r.example/',
    );
  });

  it('form-urlencodes id and secret before base64 (RFC 6749 §2.3.1)', () => {
    const header = basicAuthorization('my client', 'p:ss+w%rd/=');
    const decoded = atob(header.slice('Basic '.length));
    assert.equal(decoded, 'my+client:p%3Ass%2Bw%25rd%2F%3D');
  });
});

describe('token exchange answer', () => {
  it('accepts a Bearer access token with its lifetime', () => {
    assert.deepEqual(parseExchangeResponse(200, ok({}), SUBJECT), { ok: true, token: 'exchanged', expiresInSeconds: 120 });
    assert.deepEqual(parseExchangeResponse(200, ok({ token_type: 'bearer', issued_token_type: undefined, expires_in: undefined }), SUBJECT), {
      ok: true,
      token: 'exchanged',
      expiresInSeconds: UNSTATED_LIFETIME_SECONDS,
    });
  });

  it("refuses the caller's own token, non-Bearer types, other token types, bad lifetimes and non-JSON", () => {
    for (const body of [
      ok({ access_token: SUBJECT }),
      ok({ token_type: 'N_A' }),
      ok({ token_type: 'DPoP' }),
      ok({ issued_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
      ok({ expires_in: -5 }),
      ok({ expires_in: '60' }),
      ok({ access_token: '' }),
      '<html>',
      '[]',
    ]) {
      const parsed = parseExchangeResponse(200, body, SUBJECT);
      assert.equal(parsed.ok, false, body);
      assert.equal(!parsed.ok && parsed.kind, 'unavailable', body);
    }
  });

  it('a refused grant asks the person to sign in again; the service failing says try later; neither quotes the server', () => {
    const refused = parseExchangeResponse(400, JSON.stringify({ error: 'invalid_grant', error_description: 'SECRET-DESCRIPTION' }), SUBJECT);
    assert.equal(refused.ok === false && refused.kind, 'refused');
    const message = failureResult('github', refused as Extract<typeof refused, { ok: false }>);
    assert.match(JSON.stringify(message), /sign in again/i);
    for (const [status, body] of [
      [503, 'SECRET-BODY'],
      [500, JSON.stringify({ error: 'server_error', error_description: 'SECRET-DESCRIPTION' })],
      [302, ''],
      [400, JSON.stringify({ error: 'unsupported_grant_type' })],
      [400, JSON.stringify({ error: 'x'.repeat(100) })],
    ] as const) {
      const parsed = parseExchangeResponse(status, body, SUBJECT);
      assert.equal(parsed.ok === false && parsed.kind, 'unavailable', body);
      const result = failureResult('github', parsed as Extract<typeof parsed, { ok: false }>);
      assert.match(JSON.stringify(result), /try again later/i);
      assert.doesNotMatch(JSON.stringify(result), /SECRET|xxxx/);
    }
  });

  it("the bridge's own credentials refused is the operator's to fix", () => {
    const parsed = parseExchangeResponse(401, JSON.stringify({ error: 'invalid_client' }), SUBJECT);
    assert.ok(!parsed.ok && parsed.kind === 'unavailable' && parsed.operatorProblem);
    const result = failureResult('github', parsed);
    assert.ok(!result.ok && result.status === 401);
    assert.match(result.message, /operator/);
  });
});

describe('token exchange cache key and subject expiry', () => {
  it('keys on subject, upstream and target, unambiguously', () => {
    const a = exchangeCacheKey('user', 'up', settings);
    assert.equal(a, exchangeCacheKey('user', 'up', { ...settings }));
    assert.notEqual(a, exchangeCacheKey('user', 'up2', settings));
    assert.notEqual(a, exchangeCacheKey('user', 'up', { ...settings, scope: 'read' }));
    assert.notEqual(exchangeCacheKey('a","b', 'c', {}), exchangeCacheKey('a', 'b","c', {}));
  });

  it("reads a JWT's exp without trusting anything else", () => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    assert.equal(jwtExpiryMs(`${b64({ alg: 'RS256' })}.${b64({ exp: 1700000000, name: 'Zoë' })}.sig`), 1_700_000_000_000);
    for (const token of ['opaque', 'a.b', `${b64({})}.${b64({ exp: 'soon' })}.s`, `${b64({})}.!!!.s`]) assert.equal(jwtExpiryMs(token), undefined);
  });

  it('token endpoints: https, or http on loopback only; no credentials in the URL', () => {
    const loopback = (h: string) => h === '127.0.0.1';
    assert.equal(tokenEndpointProblem('https://as.example/token', loopback), undefined);
    assert.equal(tokenEndpointProblem('http://127.0.0.1:9000/token', loopback), undefined);
    assert.match(tokenEndpointProblem('http://as.example/token', loopback)!, /https/);
    assert.match(tokenEndpointProblem('https://id:pw@as.example/token', loopback)!, /credentials/);
    assert.match(tokenEndpointProblem('not a url', loopback)!, /not a URL/);
  });
});
