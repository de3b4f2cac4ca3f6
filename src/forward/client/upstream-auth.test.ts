import { it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { authHeaderSource } from './upstream-auth.js';

const secret = 'a-shared-secret-of-some-length';

it('mints HS256 JWTs with exp at most 15 minutes ahead, reuses them, and re-mints before expiry', async () => {
  let now = 1_800_000_000_000;
  const source = authHeaderSource({ kind: 'jwt', secret, audience: 'otcserver', ttlSeconds: 3600, issuer: 'mcp-oxp-bridge' }, () => now);
  const first = (await source()).authorization!;
  const token = first.replace(/^Bearer /, '');
  assert.equal(decodeProtectedHeader(token).alg, 'HS256');
  const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), { audience: 'otcserver', currentDate: new Date(now) });
  assert.equal(payload.exp! - payload.iat!, 900, 'ttl clamped to the spec maximum');
  assert.equal((await source()).authorization, first, 'reused while fresh');
  now += 750_000; // into the last fifth of its life (renewal margin 180 s of 900 s)
  const second = (await source()).authorization!;
  assert.notEqual(second, first);
  assert.ok(decodeJwt(second.slice(7)).exp! > decodeJwt(token).exp!);
});

it('api key and bearer modes send exactly their header', async () => {
  assert.deepEqual(await authHeaderSource({ kind: 'api_key', key: 'k1', header: 'OXP-API-Key' })(), { 'OXP-API-Key': 'k1' });
  assert.deepEqual(await authHeaderSource({ kind: 'bearer', token: 't1' })(), { authorization: 'Bearer t1' });
  assert.deepEqual(await authHeaderSource({ kind: 'none' })(), {});
});
