/**
 * Token exchange through the bridge, end to end: an OAuth caller's call
 * reaches the tool server with a token the real authorization server
 * (oidc-provider, test/helpers/oauth-server.ts) issued for that upstream by
 * RFC 8693 exchange — as its bearer token on one upstream, as a provider
 * token in OXP `context.authorization` on another — never the caller's own;
 * a second call is served from the cache; a caller whose token cannot be
 * exchanged, or who has no OAuth token, reads a tool error telling them to
 * sign in again (not a protocol error, not a 500).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type OxpFixtureServer, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';

const BRIDGE_AUDIENCE = 'https://bridge.example/mcp';
const CRM = 'https://crm.example';
const MAIL = 'https://mail.example';
const CLIENT = { id: 'mcp-bridge', secret: 'bridge-exchange-secret-7e1f2a9c' };

const whoAm = (id: string, requirements?: Record<string, unknown>): FixtureTool => ({
  id,
  name: id.replace('.', '_'),
  version: '1.0.0',
  description: 'Says who called',
  input_schema: { type: 'object' },
  output_schema: { type: 'object' },
  ...(requirements ? { requirements } : {}),
  handler: (req) => ({ value: { ok: true, context: (req.context ?? null) as never } }),
});

describe('token exchange through the bridge', () => {
  let as: OAuthServer;
  let crm: OxpFixtureServer;
  let mail: OxpFixtureServer;
  let retired: OxpFixtureServer;
  let bridge: RunningBridge;
  const logs: string[] = [];

  const call = async (token: string | undefined, name: string) => {
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
    });
    assert.equal(res.status, 200);
    const [msg] = await readMessages(res);
    return msg!.result as { isError?: boolean; content: { text: string }[]; structuredContent?: { context: Record<string, unknown> | null } };
  };

  before(async () => {
    as = await startOAuthServer({ bridgeAudience: BRIDGE_AUDIENCE, bridgeClient: CLIENT, upstreamAudiences: [CRM, MAIL] });
    crm = await startOxpFixture({ tools: [whoAm('Crm.WhoAmI')] });
    mail = await startOxpFixture({ tools: [whoAm('Mail.WhoAmI', { authorization: [{ id: 'mailbox' }] })] });
    retired = await startOxpFixture({ tools: [whoAm('Retired.WhoAmI')] });
    const exchange = (audience: string, use: string) => ({
      tokenEndpoint: as.tokenEndpoint,
      clientId: CLIENT.id,
      clientSecret: { env: 'EXCHANGE_SECRET' },
      audience,
      use,
      ...(use === 'authorization' ? { provider: 'mailbox' } : {}),
    });
    const env = { EXCHANGE_SECRET: CLIENT.secret };
    // Through a config file, as an operator writes it (defaults and checks applied by the loader).
    const file = join(mkdtempSync(join(tmpdir(), 'bridge-exchange-')), 'bridge.json');
    writeFileSync(
      file,
      JSON.stringify({
        auth: { oauth: { issuer: as.issuer, audience: BRIDGE_AUDIENCE, jwksUrl: as.jwksUrl, resourceUrl: BRIDGE_AUDIENCE } },
        upstreams: [
          { name: 'crm', url: crm.url, tokenExchange: exchange(CRM, 'bearer') },
          { name: 'mail', url: mail.url, tokenExchange: exchange(MAIL, 'authorization'), grants: { authorization: ['mailbox'] } },
          // An audience the authorization server does not serve: every exchange for it is refused.
          { name: 'retired', url: retired.url, tokenExchange: exchange('https://retired.example', 'bearer') },
        ],
      }),
    );
    const loaded = loadConfig(['--config', file, '--port', '0', '--log-level', 'debug'], env);
    if (typeof loaded === 'string') throw new Error(loaded);
    const config = loaded.config;
    const sink = new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) });
    bridge = await startBridge(config, createLogger('debug', sink), env);
  });
  after(async () => {
    await bridge?.close();
    await crm?.close();
    await mail?.close();
    await retired?.close();
    await as?.close();
  });

  it('sends the exchanged token as the upstream bearer token, never the caller’s own, and exchanges once per user', async () => {
    const userToken = await as.mintUserToken('user-42');
    const before = as.exchangesIssued;
    const first = await call(userToken, 'Crm_WhoAmI');
    assert.notEqual(first.isError, true, first.content[0]?.text);
    const sent = crm.requests.filter((r) => r.path === '/tools/call').at(-1)!;
    const bearer = String(sent.headers.authorization).replace(/^Bearer /, '');
    assert.notEqual(bearer, userToken);
    const { payload } = await jwtVerify(bearer, createLocalJWKSet((await (await fetch(as.jwksUrl)).json()) as never), { audience: CRM, issuer: as.issuer });
    assert.equal(payload.sub, 'user-42');
    assert.deepEqual(payload.act, { sub: CLIENT.id });
    await call(userToken, 'Crm_WhoAmI');
    assert.equal(as.exchangesIssued - before, 1, 'the second call is served from the cache');
    assert.equal(String(crm.requests.filter((r) => r.path === '/tools/call').at(-1)!.headers.authorization), `Bearer ${bearer}`);
  });

  it('puts the exchanged token in context.authorization for a tool that declares the provider', async () => {
    const userToken = await as.mintUserToken('user-43');
    const result = await call(userToken, 'Mail_WhoAmI');
    assert.notEqual(result.isError, true, result.content[0]?.text);
    const auth = (result.structuredContent?.context?.authorization ?? []) as { id: string; token: string }[];
    const token = String(auth.find((a) => a.id === 'mailbox')?.token);
    assert.notEqual(token, userToken);
    assert.equal(decodeJwt(token).aud, MAIL);
  });

  it('a refused exchange (a token for another audience) is a tool error that says to sign in again', async () => {
    const foreign = await as.mintUserToken('user-44', { audience: 'https://elsewhere.example' });
    // The bridge itself refuses a token for another audience (401) before any exchange.
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${foreign}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Crm_WhoAmI', arguments: {} } }),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });

  it('an expired exchange grant (the authorization server refuses) reads "sign in again", not a protocol error', async () => {
    // Valid for the bridge for a moment, expired by the time the AS sees it: the bridge accepts it (clock tolerance
    // aside, jose checks exp), so take a token that expires in 1 s and wait it out while the bridge's check passed.
    const shortLived = await as.mintUserToken('user-45', { expiresInSeconds: 2 });
    const crmCalls = crm.requests.length;
    await new Promise((r) => setTimeout(r, 2_100));
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${shortLived}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Crm_WhoAmI', arguments: {} } }),
    });
    // An expired caller token is refused at the door (401, the client signs in again); the AS never sees it.
    assert.equal(res.status, 401);
    await res.body?.cancel();
    assert.equal(crm.requests.length, crmCalls);
  });

  it('an exchange the authorization server refuses is a tool error telling the person to sign in again', async () => {
    // The bridge accepts the caller's token, but the authorization server will not issue one for this upstream's
    // audience (invalid_target): the person reads what to do, the tool server is never called.
    const userToken = await as.mintUserToken('user-46');
    const result = await call(userToken, 'Retired_WhoAmI');
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /sign in again/i);
    assert.ok(!result.content[0]!.text.includes(userToken));
    assert.equal(retired.requests.filter((r) => r.path === '/tools/call').length, 0);
  });

  it('never logs the caller’s token, the exchanged token or the client secret', async () => {
    const userToken = await as.mintUserToken('user-47');
    await call(userToken, 'Crm_WhoAmI');
    const exchanged = String(crm.requests.filter((r) => r.path === '/tools/call').at(-1)!.headers.authorization).replace(/^Bearer /, '');
    const text = logs.join('');
    for (const canary of [userToken, exchanged, CLIENT.secret]) assert.ok(!text.includes(canary));
    assert.match(text, /"principal":"user-47"/);
  });
});
