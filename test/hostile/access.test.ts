/**
 * Hostile callers against the access policy: group claims forged by
 * signing with another key, a token minted for another audience, groups
 * smuggled in headers or `_meta`, group claims of the wrong shape or huge,
 * and a policy pattern that would make a backtracking matcher stall, with a
 * principal name built to hit it. Identity comes from verified credentials
 * only, the policy's answer never changes for these, and the process keeps
 * answering its health check.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { assertHealthy, healthzOf } from './health.js';

const ISSUER = 'https://issuer.example';
const auditFile = join(mkdtempSync(join(tmpdir(), 'hostile-audit-')), 'audit.jsonl');
const AUDIENCE = 'https://bridge.example/mcp';
/** 40 stars between a's: `^.*a.*a…b$` as a regexp backtracks for ever on a long run of a's. */
const CATASTROPHIC = `${'*a'.repeat(40)}*b`;

describe('hostile callers against the access policy', () => {
  let key: CryptoKey;
  let otherKey: CryptoKey;
  let jwks: Server;
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;

  const token = (claims: Record<string, unknown>, options: { key?: CryptoKey; aud?: string; sub?: string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(options.aud ?? AUDIENCE)
      .setSubject(options.sub ?? 'mallory')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(options.key ?? key);

  const list = async (bearer: string, headers: Record<string, string> = {}, meta?: Record<string, unknown>) => {
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${bearer}`, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: meta ? { _meta: meta } : {} }),
    });
    if (res.status !== 200) return { status: res.status, names: [] as string[] };
    const [msg] = await readMessages(res);
    return { status: res.status, names: ((msg!.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name) };
  };

  before(async () => {
    const pair = await generateKeyPair('RS256');
    key = pair.privateKey;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const config = testConfig([
      '--oxp-url',
      fixture.url,
      '--oauth-issuer',
      ISSUER,
      '--oauth-audience',
      AUDIENCE,
      '--oauth-jwks-url',
      `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
      '--oauth-resource-url',
      'https://mcp.example.com/mcp',
    ]);
    config.auth.oauth!.claims = { user: 'sub', groups: ['groups'] };
    config.audit = { sink: 'file', path: auditFile };
    config.access = {
      default: 'allow',
      rules: [
        { id: 'catastrophic', effect: 'deny', principals: { names: [CATASTROPHIC] }, tools: { names: [CATASTROPHIC] } },
        { id: 'admins', effect: 'allow', principals: { groups: ['admin'] }, tools: { names: ['Doorbell_*'] } },
        { id: 'others', effect: 'deny', tools: { names: ['Doorbell_*'] } },
      ],
    };
    bridge = await startBridge(config, createLogger('silent'));
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
    jwks?.close();
  });

  it('an admin with a genuine token sees the admin tool (the policy works)', async () => {
    const { status, names } = await list(await token({ groups: ['admin'] }));
    assert.equal(status, 200);
    assert.ok(names.includes('Doorbell_Ring'));
  });

  it('refuses group claims signed with another key, and a token for another audience', async () => {
    for (const forged of [await token({ groups: ['admin'] }, { key: otherKey }), await token({ groups: ['admin'] }, { aud: 'https://another.example/mcp' })]) {
      const { status } = await list(forged);
      assert.equal(status, 401);
    }
    await assertHealthy(healthzOf(bridge.mcpUrl!));
  });

  it('takes groups from the verified claims only: not from headers, _meta, or claims of another shape', async () => {
    const plain = await token({ groups: ['users'] });
    const smuggled = await list(plain, { 'x-groups': 'admin', 'x-forwarded-groups': 'admin', 'x-oxp-authorization-groups': 'admin' }, { groups: ['admin'] });
    assert.equal(smuggled.status, 200);
    assert.ok(!smuggled.names.includes('Doorbell_Ring'));
    const oddShapes = [
      { groups: { admin: true } },
      { groups: [['admin']] },
      { groups: [{ name: 'admin' }] },
      { groups: Array.from({ length: 20_000 }, (_, i) => `g${i}`) },
    ];
    for (const claims of oddShapes) {
      const { status, names } = await list(await token(claims));
      assert.ok(status === 200 || status === 401 || status === 431, `status ${status}`);
      assert.ok(!names.includes('Doorbell_Ring'));
    }
    await assertHealthy(healthzOf(bridge.mcpUrl!));
  });

  it('a pattern that would stall a backtracking matcher, against a principal name built for it, answers at once', async () => {
    const started = performance.now();
    const { status, names } = await list(await token({}, { sub: 'a'.repeat(6_000) }));
    assert.equal(status, 200);
    assert.ok(!names.includes('Doorbell_Ring'));
    assert.ok(performance.now() - started < 5_000);
    await assertHealthy(healthzOf(bridge.mcpUrl!));
  });

  it('a principal name with line breaks, terminal controls and a forged record stays inside its own audit record', async () => {
    const forged = `mallory\n{"type":"call","decision":"allowed","principal":{"name":"admin"}}\r\u2028\u2029\u0085\u001b[2J\u202e`;
    const calls = 3;
    for (let i = 0; i < calls; i++) {
      const res = await fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${await token({}, { sub: forged })}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 1, b: 2 } } }),
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    await bridge.audit.flush();
    const lines = readFileSync(auditFile, 'utf8').split('\n').filter(Boolean);
    const mine = lines.map((l) => JSON.parse(l) as { principal: { name: string } }).filter((r) => r.principal.name.startsWith('mallory'));
    assert.equal(mine.length, calls, 'one record per call, none forged');
    assert.ok(
      mine.every((r) => r.principal.name === forged),
      'the name parses back whole',
    );
    assert.ok(!lines.some((l) => /"name":"admin"/.test(l.replace(/\\"/g, ''))), 'no line is the forged record');
    for (const c of ['\r', '\u2028', '\u2029', '\u0085', '\u001b', '\u202e']) assert.ok(!readFileSync(auditFile, 'utf8').includes(c));
    await assertHealthy(healthzOf(bridge.mcpUrl!));
  });
});
