/**
 * Server authentication of the oxp-server, per the OXP security page, over
 * real HTTP: none (Authorization ignored; loopback only unless allowed),
 * OXP-API-Key, HS256 JWT bearer and its edge cases. /health never needs
 * credentials; every 401 carries a ServerErrorResponse body; no key, secret
 * or token reaches the logs.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { ConfigError } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { assertOxpSchema, OxpClient, startTestOxpServer, type TestOxpServer } from '../helpers/oxp-server-harness.js';

const KEY_A = 'key-a-0123456789abcdef0123456789';
const KEY_B = 'key-b-fedcba9876543210fedcba9876';
const SECRET = 'jwt-secret-0123456789abcdef0123456789';
const now = () => Math.floor(Date.now() / 1000);

async function jwt(claims: Record<string, unknown>, options: { secret?: string; alg?: string } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(options.secret ?? SECRET));
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('oxp-server authentication', () => {
  let fixture: McpHttpFixture;
  const logLines: string[] = [];
  const log = createLogger('trace', new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }));
  before(async () => {
    fixture = await startMcpHttpFixture({ version: '1.0.0' });
  });
  after(async () => {
    await fixture?.close();
    const all = logLines.join('');
    for (const secret of [KEY_A, KEY_B, SECRET]) assert.ok(!all.includes(secret), 'a key or secret reached the logs');
    assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\./.test(all), 'a token reached the logs');
  });

  /** A 401: ServerErrorResponse body, a challenge, and no detail about why. */
  async function assertUnauthorized(client: OxpClient, what: string): Promise<void> {
    for (const reply of [
      await client.raw('/tools'),
      await client.raw('/tools/call', { method: 'POST', body: JSON.stringify({ request: { tool_id: 'Fx.add', input: { a: 1, b: 2 } } }) }),
    ]) {
      assert.equal(reply.status, 401, what);
      assertOxpSchema('ServerErrorResponse', reply.body);
      assert.deepEqual(reply.body, { $schema: 'urn:oxp:1.0', message: 'Unauthorized' }, what);
      assert.ok(reply.headers.get('www-authenticate'), what);
    }
  }
  async function assertAuthorized(client: OxpClient, what: string): Promise<void> {
    assert.equal((await client.raw('/tools')).status, 200, what);
    assert.equal((await client.call('Fx.add', { a: 1, b: 2 })).status, 200, what);
  }

  describe('no authentication configured', () => {
    let server: TestOxpServer;
    before(async () => {
      server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`], {}, log);
    });
    after(async () => server?.close());

    it('ignores the Authorization header entirely', async () => {
      for (const authorization of ['Bearer garbage', 'Basic Zm9vOmJhcg==', 'Bearer eyJhbGciOiJub25lIn0.e30.']) {
        await assertAuthorized(new OxpClient(server.url, { authorization }), authorization);
      }
    });

    it('refuses to listen beyond loopback unless allowed', async () => {
      await assert.rejects(
        startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--host', '0.0.0.0'], {}, log),
        (e: unknown) => e instanceof ConfigError && /without authentication/.test(e.message),
      );
      const open = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--host', '0.0.0.0', '--allow-unauthenticated', 'true'], {}, log);
      await open.close();
    });
  });

  describe('OXP-API-Key', () => {
    let server: TestOxpServer;
    before(async () => {
      server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--api-key', KEY_A, '--api-key', KEY_B, '--host', '0.0.0.0'], {}, log);
    });
    after(async () => server?.close());

    it('accepts each configured key (in OXP-API-Key, or as a bearer), refuses a wrong, shorter, longer or missing one with 401', async () => {
      await assertAuthorized(new OxpClient(server.url, { 'oxp-api-key': KEY_A }), 'key A');
      await assertAuthorized(new OxpClient(server.url, { 'OXP-API-Key': KEY_B }), 'key B');
      for (const key of [KEY_A.slice(0, -1), `${KEY_A}x`, KEY_A.toUpperCase(), 'x'])
        await assertUnauthorized(new OxpClient(server.url, { 'oxp-api-key': key }), key);
      await assertUnauthorized(new OxpClient(server.url), 'no key');
      // How the Stainless clients (oxp-python, oxp-go) send it.
      await assertAuthorized(new OxpClient(server.url, { authorization: `Bearer ${KEY_A}` }), 'the key as a bearer');
      await assertUnauthorized(new OxpClient(server.url, { authorization: `Bearer ${KEY_A}x` }), 'a wrong key as a bearer');
    });

    it('/health needs no credentials', async () => {
      assert.equal((await new OxpClient(server.url).raw('/health')).status, 200);
    });

    it('takes keys from OXP_SERVER_API_KEYS, comma-separated', async () => {
      const fromEnv = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`], { OXP_SERVER_API_KEYS: `${KEY_A}, ${KEY_B}` }, log);
      try {
        await assertAuthorized(new OxpClient(fromEnv.url, { 'oxp-api-key': KEY_B }), 'env key');
        await assertUnauthorized(new OxpClient(fromEnv.url), 'no key');
      } finally {
        await fromEnv.close();
      }
    });
  });

  describe('HS256 JWT bearer', () => {
    let server: TestOxpServer;
    before(async () => {
      server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--jwt-audience', 'otcserver'], { OXP_SERVER_JWT_SECRET: SECRET }, log);
    });
    after(async () => server?.close());
    const bearer = (token: string) => new OxpClient(server.url, { authorization: `Bearer ${token}` });

    it('accepts a signed token with exp ≤ 15 minutes ahead, with no aud or a configured one', async () => {
      await assertAuthorized(bearer(await jwt({ exp: now() + 300 })), 'no aud');
      await assertAuthorized(bearer(await jwt({ exp: now() + 900, aud: 'otcserver' })), 'aud');
      await assertAuthorized(bearer(await jwt({ exp: now() + 60, aud: ['someone-else', 'otcserver'] })), 'aud list');
    });

    it('refuses expired, exp-less, too-long-lived, wrong-aud and wrongly signed tokens', async () => {
      const cases: [string, string][] = [
        ['expired', await jwt({ exp: now() - 120 })],
        ['no exp', await jwt({ iat: now() })],
        ['exp 20 minutes ahead', await jwt({ exp: now() + 1200 })],
        ['wrong aud', await jwt({ exp: now() + 300, aud: 'other-server' })],
        ['wrong secret', await jwt({ exp: now() + 300 }, { secret: 'another-secret-0123456789abcdef' })],
        ['HS512 with the right secret', await jwt({ exp: now() + 300 }, { alg: 'HS512' })],
        ['not a JWT', 'not-a-jwt'],
      ];
      for (const [what, token] of cases) await assertUnauthorized(bearer(token), what);
    });

    it('refuses alg none and RS256', async () => {
      const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ exp: now() + 300 })}.`;
      await assertUnauthorized(bearer(unsigned), 'alg none');
      const { privateKey } = await generateKeyPair('RS256');
      const rs = await new SignJWT({ exp: now() + 300 }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
      await assertUnauthorized(bearer(rs), 'RS256');
      // The HS256 secret used as if it were the RS256 "public key" (alg confusion) changes nothing either.
      const confused = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${rs.split('.')[1]}.${rs.split('.')[2]}`;
      await assertUnauthorized(bearer(confused), 'alg confusion');
    });

    it('with no allowed clients configured, a token that carries aud is refused', async () => {
      const noAudiences = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--jwt-secret', SECRET], {}, log);
      try {
        const client = (token: string) => new OxpClient(noAudiences.url, { authorization: `Bearer ${token}` });
        await assertAuthorized(client(await jwt({ exp: now() + 300 })), 'no aud');
        await assertUnauthorized(client(await jwt({ exp: now() + 300, aud: 'otcserver' })), 'aud nobody allowed');
      } finally {
        await noAudiences.close();
      }
    });

    it('accepts either method when both are configured', async () => {
      const both = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`], { OXP_SERVER_JWT_SECRET: SECRET, OXP_SERVER_API_KEYS: KEY_A }, log);
      try {
        await assertAuthorized(new OxpClient(both.url, { 'oxp-api-key': KEY_A }), 'key');
        await assertAuthorized(new OxpClient(both.url, { authorization: `Bearer ${await jwt({ exp: now() + 300 })}` }), 'jwt');
        await assertAuthorized(
          new OxpClient(both.url, { 'oxp-api-key': 'wrong-key-0123456789abcdef', authorization: `Bearer ${await jwt({ exp: now() + 300 })}` }),
          'bad key, good jwt',
        );
        await assertUnauthorized(new OxpClient(both.url, { 'oxp-api-key': 'wrong-key-0123456789abcdef' }), 'bad key only');
      } finally {
        await both.close();
      }
    });
  });
});
