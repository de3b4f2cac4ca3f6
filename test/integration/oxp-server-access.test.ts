/**
 * Who may call what on the oxp-server (issue 26), over real HTTP with real
 * MCP servers upstream: named API keys in different groups, a plain key and
 * HS256 JWTs each list only the tools the access policy lets them call
 * (bodies valid against the OXP OpenAPI schema); `tools.names` matches the
 * MCP tool's own name, `oxpIds` the published id, `upstreams` the toolkit; a
 * call to a hidden tool is answered byte for byte as an unknown id's (400,
 * and the 503 of a server that has not listed yet), never with the 422 its
 * invalid input would get; the anonymous principal (`auth.anonymous`); and a
 * config file reload of the CLI that changes what one key sees.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { OXP_SERVER_COMMAND } from '../../src/config/oxp-server-settings.js';
import { fixtureTools, startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { assertReplyShape, eventually, OxpClient, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';

const ALICE = 'alice-key-3f9a1c0d5e7b2a64c1';
const BOB = 'bob-key-8c2e4f6a1b3d5e70d2';
const PLAIN = 'plain-key-0123456789abcdef';
const SECRET = 'jwt-secret-0123456789abcdef0123456789';
const ENV = { ALICE_KEY: ALICE, BOB_KEY: BOB };

const API_KEYS = [{ name: 'alice', value: { env: 'ALICE_KEY' }, groups: ['eng'] }, { name: 'bob', value: { env: 'BOB_KEY' }, groups: ['sales'] }, PLAIN];

/**
 * alice (eng) may call everything; nobody else the MCP tool `count/words` (published as Fx.count_words and
 * Web.count_words); bob (sales) not Fx.add nor Fx.echo_*; ci-bot no tool of the Web toolkit. `split_words` is the
 * OXP name of the MCP tool `split.words`: a `names` pattern matches MCP names only, so that rule hides nothing.
 */
const RULES = [
  { id: 'eng-all', effect: 'allow', principals: { groups: ['eng'] } },
  { id: 'no-count', effect: 'deny', tools: { names: ['count/*'] } },
  { id: 'oxp-name-is-no-mcp-name', effect: 'deny', tools: { names: ['split_words'] } },
  { id: 'sales-no-add', effect: 'deny', principals: { groups: ['sales'] }, tools: { oxpIds: ['Fx.add', 'Fx.echo_*'] } },
  { id: 'ci-no-web', effect: 'deny', principals: { names: ['ci-bot'] }, tools: { upstreams: ['Web'] } },
];

const jwt = (sub: string) =>
  new SignJWT({ sub, exp: Math.floor(Date.now() / 1000) + 300 }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(SECRET));

const ids = async (client: OxpClient) => (await client.listOrNone()).map((t) => String(t.id).split('@')[0]!).sort();

/** One POST /tools/call as it came over the wire: status, every header but Date, the body's text with `toolId` (and its key) as `<id>`. */
async function wireCall(url: string, headers: Record<string, string>, toolId: string, input: unknown) {
  const body = JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: toolId, input, call_id: 'c-1' } });
  const res = await fetch(`${url}/tools/call`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  assertReplyShape({ status: res.status, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> });
  const kept = [...res.headers].filter(([name]) => name !== 'date');
  return { status: res.status, headers: kept, text: text.replaceAll(toolId, '<id>').replaceAll(toolId.split('@')[0]!, '<id>') };
}

describe('oxp-server access policy', () => {
  let fx: McpHttpFixture;
  let web: McpHttpFixture;
  let server: TestOxpServer;
  const logLines: string[] = [];
  const log = createLogger('debug', new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }));
  const as = (headers: Record<string, string>) => new OxpClient(server.url, headers);
  before(async () => {
    fx = await startMcpHttpFixture({ version: '1.0.0' });
    web = await startMcpHttpFixture({ version: '2.0.0', tools: fixtureTools().filter((t) => t.name === 'add' || t.name === 'count/words') });
    const file = writeConfigFile({ oxpServer: { apiKeys: API_KEYS, jwtSecret: SECRET }, access: { rules: RULES } });
    server = await startTestOxpServer(['--config', file, '--mcp-url', `Fx=${fx.url}`, '--mcp-url', `Web=${web.url}`], ENV, log);
  });
  after(async () => {
    await server?.close();
    await fx?.close();
    await web?.close();
  });

  it('lists per principal: named keys by group, a plain key, JWTs by sub; names match MCP names, oxpIds ids, upstreams toolkits', async () => {
    const all = await ids(as({ 'oxp-api-key': ALICE }));
    assert.ok(all.includes('Fx.count_words') && all.includes('Web.add') && all.includes('Fx.split_words'), all.join());
    const without = (...hidden: string[]) => all.filter((id) => !hidden.includes(id) && !hidden.some((h) => h.endsWith('*') && id.startsWith(h.slice(0, -1))));
    assert.deepEqual(await ids(as({ 'oxp-api-key': BOB })), without('Fx.count_words', 'Web.count_words', 'Fx.add', 'Fx.echo_text'));
    assert.deepEqual(await ids(as({ authorization: `Bearer ${BOB}` })), without('Fx.count_words', 'Web.count_words', 'Fx.add', 'Fx.echo_text'));
    assert.deepEqual(await ids(as({ 'oxp-api-key': PLAIN })), without('Fx.count_words', 'Web.count_words'));
    assert.deepEqual(await ids(as({ authorization: `Bearer ${await jwt('ci-bot')}` })), without('Fx.count_words', 'Web.*'));
    assert.deepEqual(await ids(as({ authorization: `Bearer ${await jwt('someone')}` })), without('Fx.count_words', 'Web.count_words'));
  });

  it('a hidden tool is called as an unknown id, byte for byte, before its input is validated', async () => {
    const bob = { 'oxp-api-key': BOB };
    // Without the policy, this input gets a 422 (alice may call the tool): a hidden tool must not.
    const allowed = await wireCall(server.url, { 'oxp-api-key': ALICE }, 'Fx.add', { a: 'one' });
    assert.equal(allowed.status, 422);
    for (const [hidden, unknown] of [
      ['Fx.add', 'Fx.zzz'],
      ['Fx.add@1.0.0', 'Fx.zzz@1.0.0'],
      ['Fx.add@9', 'Fx.zzz@9'],
      ['Web.count_words', 'Web.zzzzz_words'],
    ] as const) {
      for (const input of [{ a: 'one' }, { a: 1, b: 2 }, 'not an object']) {
        const denied = await wireCall(server.url, bob, hidden, input);
        assert.deepEqual(denied, await wireCall(server.url, bob, unknown, input), `${hidden} ${JSON.stringify(input)}`);
        assert.equal(denied.status, 400);
        assert.match(denied.text, /"message":"Tool '<id>' was not found"/);
      }
    }
    // A version that does not exist reads differently for a tool one may call: the comparison above is not vacuous.
    assert.match((await wireCall(server.url, { 'oxp-api-key': ALICE }, 'Fx.add@9', {})).text, /has no version matching/);
    assert.equal((await as(bob).call('Web.add', { a: 1, b: 2 })).status, 200);
  });

  it("an unknown id's 400 names the closest tool the caller may call, never one hidden from it", async () => {
    const message = async (key: string, toolId: string) => {
      const reply = await as({ 'oxp-api-key': key }).call(toolId, {});
      assert.equal(reply.status, 400);
      return String(reply.body.message).replace(`'${toolId}'`, "'<id>'");
    };
    assert.equal(await message(ALICE, 'Fx.ad'), "Tool '<id>' was not found (did you mean Fx.add?)");
    assert.equal(await message(ALICE, 'Fx.ad@1'), "Tool '<id>' was not found (did you mean Fx.add?)");
    assert.equal(await message(ALICE, 'Fx_add'), "Tool '<id>' was not found (did you mean Fx.add?)", 'not even an id');
    assert.equal(await message(BOB, 'Web.ad'), "Tool '<id>' was not found (did you mean Web.add?)");
    // Fx.add is hidden from bob: its typo is an unknown id with no guess, as any other.
    assert.equal(await message(BOB, 'Fx.ad'), "Tool '<id>' was not found");
    assert.equal(await message(BOB, 'Fx.add'), "Tool '<id>' was not found");
  });

  it('names the principal in the per-call log line, and a denial with its rule in its own line (debug)', async () => {
    await as({ 'oxp-api-key': ALICE }).result('Fx.add', { a: 1, b: 2 });
    await as({ 'oxp-api-key': BOB }).call('Fx.add', { a: 1, b: 2 });
    const lines = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l.msg === 'OXP call' && l.principal === 'alice' && l.oxp_tool === 'Fx.add@1.0.0' && l.outcome === 'success'));
    const denial = lines.find((l) => l.msg === 'OXP call' && l.outcome === 'denied' && l.principal === 'bob');
    assert.deepEqual(denial?.rule, { index: 3, id: 'sales-no-add' });
    assert.ok(!logLines.join('').includes(BOB), 'a key reached the logs');
  });
});

describe('oxp-server access policy: a server that has not listed yet', () => {
  it('answers a hidden tool with the same 503 as an unknown id while an upstream may still hold it', async () => {
    const fx = await startMcpHttpFixture({ version: '1.0.0' });
    // An MCP server that accepts connections and never answers: it has not listed its tools (nor failed) yet.
    const sockets = new Set<Socket>();
    const silent = createServer((s) => sockets.add(s.on('close', () => sockets.delete(s))));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/mcp`;
    const file = writeConfigFile({ oxpServer: { apiKeys: API_KEYS }, access: { rules: RULES } });
    const argv = ['--config', file, '--mcp-url', `Fx=${fx.url}`, '--mcp-url', silentUrl, '--connect-timeout-ms', '120000'];
    let server: TestOxpServer | undefined;
    try {
      server = await startTestOxpServer(argv, ENV, undefined, { noWait: true });
      const alice = new OxpClient(server.url, { 'oxp-api-key': ALICE });
      await eventually(async () => (await ids(alice)).includes('Fx.add'), 20_000, 'Fx listed');
      for (const input of [{ a: 'one' }, { a: 1, b: 2 }]) {
        const denied = await wireCall(server.url, { 'oxp-api-key': BOB }, 'Fx.add', input);
        assert.deepEqual(denied, await wireCall(server.url, { 'oxp-api-key': BOB }, 'Fx.zzz', input));
        assert.equal(denied.status, 503);
        assert.ok(denied.headers.some(([name]) => name === 'retry-after'));
      }
    } finally {
      await server?.close();
      for (const s of sockets) s.destroy();
      silent.close();
      await fx.close();
    }
  });
});

describe('oxp-server access policy: the anonymous principal', () => {
  it('is auth.anonymous when no authentication is configured, and follows a reload', async () => {
    const fx = await startMcpHttpFixture({ version: '1.0.0' });
    const config = (groups: string[]) => ({
      auth: { anonymous: { name: 'laptop', groups } },
      access: { rules: [{ effect: 'deny', principals: { names: ['laptop'], groups: ['local'] }, tools: { oxpIds: ['Fx.add'] } }] },
    });
    const file = writeConfigFile(config(['local']));
    const argv = ['--config', file, '--mcp-url', `Fx=${fx.url}`, '--log-level', 'silent'];
    let server: TestOxpServer | undefined;
    try {
      server = await startTestOxpServer(argv, {});
      assert.ok(!(await ids(server.client)).includes('Fx.add'));
      assert.equal((await server.client.call('Fx.add', { a: 1, b: 2 })).status, 400);
      writeFileSync(file, JSON.stringify(config([])));
      const loaded = loadConfig(['--port', '0', ...argv], {}, OXP_SERVER_COMMAND);
      if (typeof loaded === 'string') throw new Error(loaded);
      assert.deepEqual(await server.applyConfig(loaded.config), []);
      assert.ok((await ids(server.client)).includes('Fx.add'));
      assert.equal((await server.client.call('Fx.add', { a: 1, b: 2 })).status, 200);
    } finally {
      await server?.close();
      await fx.close();
    }
  });
});

describe('oxp-server access policy: the CLI reloads its config file', () => {
  it('a rewritten access section changes what one key lists, at once; a console change is named as needing a restart', async () => {
    const fx = await startMcpHttpFixture({ version: '1.0.0' });
    const file = writeConfigFile({ oxpServer: { apiKeys: API_KEYS }, access: { rules: [] } });
    let cli: CliProcess | undefined;
    try {
      cli = await startCli(['oxp-server', '--config', file, '--port', '0', '--mcp-url', `Fx=${fx.url}`], ENV);
      const bob = new OxpClient(cli.url, { 'oxp-api-key': BOB });
      const alice = new OxpClient(cli.url, { 'oxp-api-key': ALICE });
      await eventually(async () => (await ids(bob)).includes('Fx.add'), 30_000, 'Fx.add listed');
      writeFileSync(
        file,
        JSON.stringify({
          oxpServer: { apiKeys: API_KEYS },
          console: { enabled: false },
          access: { rules: [{ effect: 'deny', principals: { names: ['bob'] }, tools: { oxpIds: ['Fx.add'] } }] },
        }),
      );
      await eventually(async () => !(await ids(bob)).includes('Fx.add'), 20_000, 'Fx.add hidden from bob');
      assert.ok((await ids(alice)).includes('Fx.add'));
      assert.equal((await bob.call('Fx.add', { a: 1, b: 2 })).status, 400);
      const logs = cli.logs;
      await eventually(() => logs.some((l) => l.includes('take effect only after a restart') && l.includes('"console"')), 5_000, 'restart warning');
    } finally {
      await cli?.stop();
      await fx.close();
    }
  });
});
