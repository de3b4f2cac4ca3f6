/**
 * Hostile peers, secrets and URLs (issue 10):
 * - a third-party upstream beside a trusted one never receives the global
 *   secrets or the user's per-provider tokens unless the operator granted
 *   them, and granted ones reach exactly the granted upstream;
 * - a global secret no upstream may receive is refused at start-up and on
 *   reload, with the key to add;
 * - a check_url the upstream chose on another origin is never fetched
 *   (blind SSRF), nor one over http on a host that is not loopback;
 * - javascript:/data:/file: links never reach a client, in either direction;
 * - the 2026-07-28 requestState is sealed: unreadable, tamper-proof, and
 *   valid on every replica with the same MCP_SESSION_SECRET.
 * Every case then checks the bridge still answers its health endpoint in under 1 s.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { MCP_HEADERS, MODERN_META, modernHeaders, readMessages, testConfig, until } from '../helpers/bridge-harness.js';
import { commandLine, startTestOxpServer } from '../helpers/oxp-server-harness.js';
import { startBridgeProcess } from './bridge-process.js';
import { assertHealthy, healthzOf } from './health.js';
import { hostileMcpCommand } from './hostile-mcp-server.js';
import { startHostileOxp, type HostileOxpServer } from './hostile-oxp-server.js';
import { FILE_URL, HTTPS_URL, JAVASCRIPT_URL } from './mcp-scenarios/secrets-urls.js';
import { challenge } from './oxp-scenarios/secrets-urls.js';

const CANARY_SECRET = 'canary-secret-7f3a9c0d';
const CANARY_TOKEN = 'canary-token-b81d2e55';
const THIRD_PARTY_OWN = 'third-party-own-value-19ab';
const DECOY_PATH = '/admin/delete-everything?confirm=yes';

function writeConfig(config: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'secrets-urls-')), 'bridge.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function bridgeFor(config: Record<string, unknown>, env: Record<string, string> = {}): Promise<RunningBridge> {
  return startBridge(testConfig(['--config', writeConfig(config)], env), createLogger('silent'), env);
}

/**
 * Writes `config` to `file` until `seen()` holds: the file watcher starts
 * only after the listening line, so a single early write could go unseen.
 */
async function rewriteUntil(file: string, config: Record<string, unknown>, seen: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!seen()) {
    assert.ok(Date.now() < deadline, 'the configuration change was not picked up in time');
    writeFileSync(file, JSON.stringify(config));
    await until(seen, 2_500).catch(() => undefined);
  }
}

/** Everything a scenario received (headers and bodies), as one string to search for canaries. */
function received(server: HostileOxpServer, scenario: string): string {
  return JSON.stringify(server.hits(scenario).map((h) => ({ headers: h.headers, body: h.body })));
}

interface CallResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** A 2025-06-18 tools/call over raw HTTP (stateless, no session). */
async function legacyCall(mcpUrl: string, name: string, headers: Record<string, string> = {}, version = '2025-06-18'): Promise<CallResult> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': version, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  const [message] = await readMessages(res);
  assert.ok(message?.result, `a result, got ${JSON.stringify(message)}`);
  return message.result as CallResult;
}

const URL_CAPABLE_META = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } };

/** A 2026-07-28 tools/call over raw HTTP from a client that declared URL elicitation. */
async function modernCall(
  mcpUrl: string,
  name: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...modernHeaders('tools/call', name), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: URL_CAPABLE_META, ...extra } }),
  });
  const [message] = await readMessages(res);
  assert.ok(message, 'an answer');
  return message;
}

interface InputRequired {
  resultType: string;
  requestState: string;
  inputRequests: Record<string, { params: { url: string; mode: string } }>;
}

describe('hostile peers: secrets and URLs', () => {
  let hostile: HostileOxpServer;
  let decoy: HostileOxpServer;
  let decoyUrl = '';

  before(async () => {
    // The decoy lives on another port: another origin than any upstream.
    decoy = await startHostileOxp();
    decoyUrl = `${decoy.url('decoy')}${DECOY_PATH}`;
    const decoyPort = new URL(decoy.origin).port;
    hostile = await startHostileOxp({
      scenarios: {
        'check-elsewhere': challenge({ url: 'https://auth.example/authorize?flow=3', checkUrl: decoyUrl }),
        // IPv4-mapped 127.0.0.1: reaches the decoy, but does not look like loopback.
        'check-http-elsewhere': challenge({ url: 'https://auth.example/authorize?flow=4', checkUrl: `http://[::ffff:7f00:1]:${decoyPort}/decoy${DECOY_PATH}` }),
      },
    });
  });
  after(async () => {
    await hostile.close();
    await decoy.close();
  });

  describe('secrets and per-user tokens are bound to upstreams', () => {
    it('several upstreams, no grants: the third party never sees the global secret or the user token', async () => {
      const bridge = await bridgeFor(
        {
          upstreams: [
            { name: 'trusted', url: hostile.url('trusted') },
            { name: 'thirdparty', url: hostile.url('third-party') },
            { name: 'thirdpartytoken', url: hostile.url('third-party-token') },
          ],
        },
        { OXP_SECRET_SHARED_KEY: CANARY_SECRET },
      );
      try {
        const headers = { 'X-OXP-Authorization-github': CANARY_TOKEN };
        const exfiltrate = await legacyCall(bridge.mcpUrl!, 'Exfiltrate', headers);
        assert.equal(exfiltrate.isError, true, 'no grant, no secret: a missing-requirement error');
        assert.match(exfiltrate.content[0]!.text, /SHARED_KEY/);
        assert.match(exfiltrate.content[0]!.text, /grants\.secrets/);
        // The tool that needs only a token still runs: without the user's token.
        const token = await legacyCall(bridge.mcpUrl!, 'ExfiltrateToken', headers);
        assert.notEqual(token.isError, true);
        assert.ok(
          hostile.hits('third-party-token').some((h) => h.path.startsWith('/tools/call')),
          'the call reached the third party',
        );
        for (const scenario of ['third-party', 'third-party-token']) {
          assert.ok(!received(hostile, scenario).includes(CANARY_SECRET), `${scenario} received the global secret`);
          assert.ok(!received(hostile, scenario).includes(CANARY_TOKEN), `${scenario} received the user's token`);
        }
        // Nor does the trusted one, until the operator grants it.
        const trusted = await legacyCall(bridge.mcpUrl!, 'TrustedRead', headers);
        assert.equal(trusted.isError, true);
        await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await bridge.close();
      }
    });

    it("granted values reach exactly the granted upstream; an upstream's own secrets stay its own", async () => {
      const before = { trusted: hostile.hits('trusted').length, third: hostile.hits('third-party').length, token: hostile.hits('third-party-token').length };
      const bridge = await bridgeFor(
        {
          upstreams: [
            { name: 'trusted', url: hostile.url('trusted'), grants: { secrets: ['SHARED_KEY'], authorization: ['GitHub'] } },
            { name: 'thirdparty', url: hostile.url('third-party'), secrets: { SHARED_KEY: { env: 'THIRD_PARTY_KEY' } } },
            { name: 'thirdpartytoken', url: hostile.url('third-party-token') },
          ],
        },
        { OXP_SECRET_SHARED_KEY: CANARY_SECRET, THIRD_PARTY_KEY: THIRD_PARTY_OWN },
      );
      try {
        const headers = { 'X-OXP-Authorization-github': CANARY_TOKEN };
        for (const name of ['TrustedRead', 'Exfiltrate', 'ExfiltrateToken'])
          assert.notEqual((await legacyCall(bridge.mcpUrl!, name, headers)).isError, true, name);
        const calls = (scenario: string, from: number) =>
          hostile
            .hits(scenario)
            .slice(from)
            .filter((h) => h.path.startsWith('/tools/call'));
        const [trustedCall] = calls('trusted', before.trusted);
        const context = (JSON.parse(trustedCall!.body) as { request: { context: unknown } }).request.context;
        assert.deepEqual(context, { secrets: [{ id: 'SHARED_KEY', value: CANARY_SECRET }], authorization: [{ id: 'github', token: CANARY_TOKEN }] });
        const [thirdCall] = calls('third-party', before.third);
        assert.deepEqual((JSON.parse(thirdCall!.body) as { request: { context: unknown } }).request.context, {
          secrets: [{ id: 'SHARED_KEY', value: THIRD_PARTY_OWN }],
        });
        for (const scenario of ['third-party', 'third-party-token']) {
          assert.ok(!received(hostile, scenario).includes(CANARY_SECRET), `${scenario} received the global secret`);
          assert.ok(!received(hostile, scenario).includes(CANARY_TOKEN), `${scenario} received the user's token`);
        }
        assert.ok(!received(hostile, 'trusted').includes(THIRD_PARTY_OWN), "the third party's own secret stays its own");
        await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await bridge.close();
      }
    });

    it('one upstream: the global environment secret and the per-user header reach it as before', async () => {
      const from = hostile.hits('trusted').length;
      const bridge = await startBridge(testConfig(['--oxp-url', hostile.url('trusted')]), createLogger('silent'), { OXP_SECRET_SHARED_KEY: CANARY_SECRET });
      try {
        assert.notEqual((await legacyCall(bridge.mcpUrl!, 'TrustedRead', { 'X-OXP-Authorization-github': CANARY_TOKEN })).isError, true);
        const call = hostile
          .hits('trusted')
          .slice(from)
          .find((h) => h.path.startsWith('/tools/call'))!;
        assert.ok(call.body.includes(CANARY_SECRET) && call.body.includes(CANARY_TOKEN));
        await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await bridge.close();
      }
    });

    it('a global secret no upstream may receive is refused at start-up and on reload, naming the key to add', async () => {
      const twoUpstreams = [
        { name: 'trusted', url: hostile.url('trusted') },
        { name: 'thirdparty', url: hostile.url('third-party') },
      ];
      const unbound = { upstreams: twoUpstreams, requirements: { secrets: { SHARED_KEY: { env: 'SHARED_SOURCE' } } } };
      const expected = /requirements\.secrets\.SHARED_KEY reaches no upstream.*grants: \{ secrets: \[SHARED_KEY\] \}/;
      await assert.rejects(startBridgeProcess(['--config', writeConfig(unbound), '--port', '0'], { SHARED_SOURCE: CANARY_SECRET }), (error: Error) =>
        expected.test(error.message),
      );
      const file = writeConfig({ upstreams: twoUpstreams, logLevel: 'info' });
      const child = await startBridgeProcess(['--config', file, '--port', '0'], { SHARED_SOURCE: CANARY_SECRET });
      try {
        await rewriteUntil(file, { ...unbound, logLevel: 'info' }, () =>
          child.logs.some((line) => /configuration file rejected/.test(line) && expected.test(line)),
        );
        assert.ok(!child.logs.join('\n').includes(CANARY_SECRET), 'the value itself is never logged');
        // The running configuration stays: the third party still gets nothing.
        assert.equal((await legacyCall(child.url, 'Exfiltrate')).isError, true);
        await assertHealthy(healthzOf(child.url));
        // Bound, the same file is accepted.
        const bound = { ...unbound, upstreams: [{ ...twoUpstreams[0], grants: { secrets: ['SHARED_KEY'] } }, twoUpstreams[1]], logLevel: 'info' };
        await rewriteUntil(file, bound, () => child.logs.some((line) => /configuration reloaded/.test(line)));
        await assertHealthy(healthzOf(child.url));
      } finally {
        child.kill();
        await child.exited;
      }
    });

    it('an allowed check_url origin must be https unless it is loopback', async () => {
      await assert.rejects(
        bridgeFor({ upstreams: [{ name: 'a', url: hostile.url('trusted'), authorizationCheckOrigins: ['http://auth.example.test'] }] }),
        /authorizationCheckOrigins: http:\/\/auth\.example\.test must use https/,
      );
      const bridge = await bridgeFor({
        upstream: { url: hostile.url('trusted'), authorizationCheckOrigins: ['https://auth.example.test', 'http://127.0.0.1:9'] },
      });
      await assertHealthy(healthzOf(bridge.mcpUrl!));
      await bridge.close();
    });
  });

  describe("check_url: the bridge fetches only the upstream's own origin", () => {
    for (const scenario of ['check-elsewhere', 'check-http-elsewhere']) {
      it(`${scenario}: accepting the elicitation never fetches the decoy, and no client sees the check_url`, async () => {
        const bridge = await bridgeFor({ upstream: { url: hostile.url(scenario), authorizationPollMs: 50, authorizationWaitSeconds: 2 } });
        try {
          const first = (await modernCall(bridge.mcpUrl!, 'Authorize')).result as InputRequired;
          assert.equal(first.resultType, 'input_required');
          const [key, request] = Object.entries(first.inputRequests)[0]!;
          assert.match(request.params.url, /^https:\/\/auth\.example\//);
          // The user accepts: the bridge resumes without polling anything elsewhere (the upstream asks again).
          const second = await modernCall(bridge.mcpUrl!, 'Authorize', { requestState: first.requestState, inputResponses: { [key]: { action: 'accept' } } });
          assert.ok(second.result, JSON.stringify(second));
          await new Promise((r) => setTimeout(r, 200));
          assert.equal(decoy.hits('decoy').length, 0, 'the decoy admin endpoint was fetched');
          // Older clients get the link, never the foreign check_url.
          const legacy = await legacyCall(bridge.mcpUrl!, 'Authorize');
          assert.equal(legacy.isError, true);
          assert.ok(!JSON.stringify(legacy).includes('/decoy'), 'the foreign check_url reached the client');
          await assertHealthy(healthzOf(bridge.mcpUrl!));
        } finally {
          await bridge.close();
        }
      });
    }

    it('a same-origin check_url is still polled, and the resumed call succeeds (real 2026-07-28 client)', async () => {
      const bridge = await bridgeFor({ upstream: { url: hostile.url('check-same-origin'), authorizationPollMs: 50 } });
      const client = new Client(
        { name: 'hostile-test', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
      );
      const shown: string[] = [];
      client.setRequestHandler('elicitation/create', async (request) => {
        shown.push((request.params as { url: string }).url);
        return { action: 'accept' };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
      try {
        const result = await client.callTool({ name: 'Authorize', arguments: {} });
        assert.equal((result.content as { text: string }[])[0]!.text, 'done');
        assert.deepEqual(shown, ['https://auth.example/authorize?flow=1']);
        assert.ok(
          hostile.hits('check-same-origin').some((h) => h.path.startsWith('/auth/status')),
          'polled on its own origin',
        );
        await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await client.close();
        await bridge.close();
      }
    });
  });

  describe('links that are not web pages never reach a client', () => {
    const cases = [
      { scenario: 'link-javascript', scheme: 'javascript:', secretPart: 'document.cookie' },
      { scenario: 'link-data', scheme: 'data:', secretPart: '<script>' },
      { scenario: 'check-file', scheme: 'file:', secretPart: '/etc/passwd' },
    ];
    for (const { scenario, scheme, secretPart } of cases) {
      it(`${scenario}: a clear isError for every client, the link never passed on`, async () => {
        const bridge = await bridgeFor({ upstream: { url: hostile.url(scenario) } });
        const client = new Client(
          { name: 'hostile-test', version: '1' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
        );
        // A 2025-11-25 client that declared URL elicitation would get the link in a -32042 error.
        const older = new Client(
          { name: 'hostile-test', version: '1' },
          { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: ['2025-11-25'], capabilities: { elicitation: { url: {} } } },
        );
        let elicited = 0;
        client.setRequestHandler('elicitation/create', async () => {
          elicited += 1;
          return { action: 'accept' };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
        await older.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
        try {
          const modern = (await client.callTool({ name: 'Authorize', arguments: {} })) as unknown as CallResult;
          const legacy = await legacyCall(bridge.mcpUrl!, 'Authorize');
          const legacyElicit = (await older.callTool({ name: 'Authorize', arguments: {} })) as unknown as CallResult;
          assert.equal(elicited, 0, 'the client was asked to open the link');
          for (const result of [modern, legacy, legacyElicit]) {
            assert.equal(result.isError, true);
            assert.ok(result.content[0]!.text.includes(`uses ${scheme} instead of https`), result.content[0]!.text);
            assert.ok(!JSON.stringify(result).includes(secretPart), `the link reached the client: ${JSON.stringify(result)}`);
          }
          await assertHealthy(healthzOf(bridge.mcpUrl!));
        } finally {
          await client.close();
          await older.close();
          await bridge.close();
        }
      });
    }
  });

  describe('requestState is sealed', () => {
    it('unreadable, tamper-rejected, and valid on another replica with the same secret only', async () => {
      const secret = { MCP_SESSION_SECRET: 'shared-replica-secret-0123456789abcdef' };
      const config = (env: Record<string, string>) =>
        testConfig(['--config', writeConfig({ upstream: { url: hostile.url('check-same-origin'), authorizationPollMs: 50 } })], env);
      const a = await startBridge(config(secret), createLogger('silent'));
      const b = await startBridge(config(secret), createLogger('silent'));
      const other = await startBridge(config({ MCP_SESSION_SECRET: 'another-replica-secret-0123456789abc' }), createLogger('silent'));
      try {
        const first = (await modernCall(a.mcpUrl!, 'Authorize')).result as InputRequired;
        const key = Object.keys(first.inputRequests)[0]!;
        const decoded = first.requestState
          .split('.')
          .map((part) => Buffer.from(part, 'base64url').toString('utf8'))
          .join('\n');
        for (const visible of ['auth/status', 'check-same-origin', '127.0.0.1', 'checkUrl', 'Authorize', 'callId']) {
          assert.ok(!decoded.includes(visible) && !first.requestState.includes(visible), `requestState reveals ${visible}`);
        }
        const accept = { inputResponses: { [key]: { action: 'accept' } } };
        const middle = Math.floor(first.requestState.length / 2);
        const flipped = first.requestState[middle] === 'A' ? 'B' : 'A';
        const tampered = first.requestState.slice(0, middle) + flipped + first.requestState.slice(middle + 1);
        for (const [state, where] of [
          [tampered, a],
          [first.requestState, other],
        ] as const) {
          const refused = await modernCall(where.mcpUrl!, 'Authorize', { requestState: state, ...accept });
          assert.equal((refused.error as { code: number } | undefined)?.code, -32602, JSON.stringify(refused));
        }
        const resumed = await modernCall(b.mcpUrl!, 'Authorize', { requestState: first.requestState, ...accept });
        assert.equal((resumed.result as CallResult).content[0]!.text, 'done', JSON.stringify(resumed));
        for (const bridge of [a, b, other]) await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await Promise.all([a.close(), b.close(), other.close()]);
      }
    });

    it('bound to the authenticated principal: another user cannot replay it', async () => {
      const alice = 'alice-token-0123456789abcdef';
      const mallory = 'mallory-token-0123456789abcdef';
      const bridge = await startBridge(
        testConfig(['--config', writeConfig({ upstream: { url: hostile.url('check-same-origin'), authorizationPollMs: 50 } })], {
          MCP_AUTH_TOKENS: `${alice},${mallory}`,
        }),
        createLogger('silent'),
      );
      try {
        const as = (token: string) => ({ authorization: `Bearer ${token}` });
        const first = (await modernCall(bridge.mcpUrl!, 'Authorize', {}, as(alice))).result as InputRequired;
        const accept = { requestState: first.requestState, inputResponses: { [Object.keys(first.inputRequests)[0]!]: { action: 'accept' } } };
        const replayed = await modernCall(bridge.mcpUrl!, 'Authorize', accept, as(mallory));
        assert.equal((replayed.error as { code: number } | undefined)?.code, -32602, JSON.stringify(replayed));
        const resumed = await modernCall(bridge.mcpUrl!, 'Authorize', accept, as(alice));
        assert.equal((resumed.result as CallResult).content[0]!.text, 'done', JSON.stringify(resumed));
        await assertHealthy(healthzOf(bridge.mcpUrl!));
      } finally {
        await bridge.close();
      }
    });
  });

  describe("oxp-server: an MCP server's URL elicitation with a link that is not a web page", () => {
    const cases = [
      { scenario: 'url-elicitation-javascript', scheme: 'javascript:', url: JAVASCRIPT_URL },
      { scenario: 'url-elicitation-file', scheme: 'file:', url: FILE_URL },
    ];
    for (const { scenario, scheme, url } of cases) {
      it(`${scenario}: a 400 naming the problem, no missing_requirements with the link`, async () => {
        const { command, args } = hostileMcpCommand(scenario);
        const server = await startTestOxpServer(['--mcp-command', commandLine(command, args)]);
        try {
          const [tool] = await server.client.list();
          const reply = await server.client.call(tool!.id as string, {});
          assert.equal(reply.status, 400, JSON.stringify(reply.body));
          assert.match(reply.body.message as string, new RegExp(`uses ${scheme} instead of https`));
          assert.equal(reply.body.missing_requirements, undefined);
          assert.ok(!JSON.stringify(reply.body).includes(url), `the link reached the OXP client: ${JSON.stringify(reply.body)}`);
          await assertHealthy(`${server.url}/health`, 'the oxp-server');
        } finally {
          await server.close();
        }
      });
    }

    it('url-elicitation-https (control): the https link reaches the OXP client as an authorization challenge', async () => {
      const { command, args } = hostileMcpCommand('url-elicitation-https');
      const server = await startTestOxpServer(['--mcp-command', commandLine(command, args)]);
      try {
        const [tool] = await server.client.list();
        const reply = await server.client.call(tool!.id as string, {});
        assert.equal(reply.status, 400);
        assert.deepEqual(reply.body.missing_requirements, { authorization: [{ id: 'auth-1', url: HTTPS_URL }] });
        await assertHealthy(`${server.url}/health`, 'the oxp-server');
      } finally {
        await server.close();
      }
    });
  });
});
