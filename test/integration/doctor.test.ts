/**
 * `mcp-oxp-bridge doctor` through the real CLI: against a running bridge
 * (in this process, with the OXP fixture), a bridge whose upstream is down, a
 * bridge that wants another token, and the configured bridge (no --url) with
 * a reachable and an unreachable upstream; with --token, who that caller is
 * (named tokens, OAuth against a real authorization server) and what it may
 * call. Each asserts the exit code and the line that says why; no token ever
 * appears in the output.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { REPO_ROOT, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { startHarness, type Harness } from '../helpers/bridge-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { runDoctor } from '../../src/commands/doctor/doctor.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { commandLine } from '../helpers/oxp-server-harness.js';

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const TOKEN = 'doctor-test-token-0123456789';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-oxp-bridge doctor ...args` to completion (60 s at most: a hang fails, it never blocks the runner). */
function doctor(args: string[], env: Record<string, string> = {}): Promise<Run> {
  // Nothing from the runner's environment may configure the bridge under test.
  const base = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string' && !/^(OXP_|MCP_|BRIDGE_|LOG_LEVEL$|NODE_TEST)/.test(e[0])),
  );
  const child = spawn(process.execPath, cliArgs(['doctor', ...args]), { cwd: REPO_ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr }))));
}

/**
 * The same command in this process (what the CLI runs, minus process start-up, a few seconds each on a
 * loaded machine): for the cases about argument handling and wording rather than the CLI itself.
 */
async function doctorInProcess(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const out: string[] = [];
  const code = await runDoctor(args, env, (line) => out.push(line));
  return { code, stdout: `${out.join('\n')}\n`, stderr: '' };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lines = (run: Run, mark: '✓' | '✗') => run.stdout.split('\n').filter((l) => l.startsWith(mark));

describe('doctor against a running bridge (--url)', () => {
  let harness: Harness;
  let authed: Harness;
  let down: HttpBridge;
  before(async () => {
    harness = await startHarness();
    authed = await startHarness({ env: { MCP_AUTH_TOKENS: TOKEN } });
    down = await startHttpBridge(`http://127.0.0.1:${await closedPort()}`, ['--connect-timeout-ms', '1000']);
  });
  after(async () => {
    await harness?.close();
    await authed?.close();
    await down?.close();
  });

  it('passes every step against a healthy bridge, the tools listed as each revision sees them, and one call', async () => {
    const run = await doctor(['--url', harness.mcpUrl, '--call', 'Calculator_Add', '--args', '{"a": 2, "b": 3}']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(lines(run, '✗'), []);
    assert.match(run.stdout, /✓ bridge reachable/);
    assert.match(run.stdout, /✓ upstream default: reachable, catalog of \d+ tools/);
    for (const revision of REVISIONS) assert.match(run.stdout, new RegExp(`✓ MCP ${revision} .*tools/list: \\d+ tools \\(.*Calculator_Add`));
    assert.match(run.stdout, /✓ tools\/call Calculator_Add: .*5/);
    assert.match(run.stdout, /all \d+ checks passed/);
  });

  it('fails with the reason when the bridge has no upstream, and names it', async () => {
    const run = await doctor(['--url', down.mcpUrl]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ upstream default: GET \/tools: connection refused/);
    assert.match(run.stdout, /skipped \(no upstream catalog loaded\)/);
  });

  it('fails naming 401 when the token is wrong (refused) or missing (none sent), and passes with the right one from MCP_DOCTOR_TOKEN', async () => {
    // Before: a wrong token was reported as "the bridge requires a bearer token → pass --token", as if none was sent.
    const wrong = await doctor(['--url', authed.mcpUrl, '--token', 'not-the-token-at-all-000']);
    assert.equal(wrong.code, 1, wrong.stdout + wrong.stderr);
    assert.match(
      wrong.stdout,
      /✗ MCP 2024-11-05 .*: 401 Unauthorized: the bridge refused the token \(it is none of its tokens, .*\)\n\s+→ check the value of --token/,
    );
    assert.doesNotMatch(wrong.stdout, /requires a bearer token/);
    assert.doesNotMatch(wrong.stdout, /not-the-token-at-all/, 'the token never appears in the output');
    const none = await doctorInProcess(['--url', authed.mcpUrl]);
    assert.equal(none.code, 1, none.stdout);
    assert.match(none.stdout, /✗ MCP 2024-11-05 .*: 401 Unauthorized: the bridge requires a bearer token and none was sent\n\s+→ pass --token/);
    const right = await doctorInProcess(['--url', authed.mcpUrl], { MCP_DOCTOR_TOKEN: TOKEN });
    assert.equal(right.code, 0, right.stdout + right.stderr);
  });

  it('fails naming the address when nothing listens there', async () => {
    const run = await doctorInProcess(['--url', `http://127.0.0.1:${await closedPort()}/mcp`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ bridge reachable: cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n\s+→ is the bridge running/);
  });
});

describe('doctor against the configured bridge (no --url)', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
  });
  after(async () => fixture?.close());

  it('loads the configuration like the bridge, reaches the upstream, lists and calls', async () => {
    // The configured port is in use by nothing here, and need not be free: the doctor's bridge takes a private one.
    const run = await doctor(['--call', 'Calculator_Add', '--args', '{"a": 1, "b": 1}'], { OXP_URL: fixture.url, MCP_PORT: '1' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /✓ configuration valid/);
    assert.match(
      run.stdout,
      new RegExp(`✓ upstream default \\(${fixture.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\): reachable, catalog of \\d+ tools decoded`),
    );
    assert.equal(lines(run, '✓').filter((l) => l.includes('tools/list')).length, REVISIONS.length);
    assert.match(run.stdout, /✓ tools\/call Calculator_Add: .*2/);
  });

  it('fails naming the unreachable upstream', async () => {
    const run = await doctor(['--oxp-url', `http://127.0.0.1:${await closedPort()}`, '--connect-timeout-ms', '1000']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /✓ configuration valid/);
    assert.match(run.stdout, /✗ upstream default \(http:\/\/127\.0\.0\.1:\d+\): GET \/tools: connection refused\n\s+→ check the URL/);
  });

  it("an --oxp-url ending in /tools (the list's address, not the server's): the 404 says to give the base URL", async () => {
    // Before: "HTTP 404 from GET /tools", and nothing said the bridge had asked for /tools/tools.
    const run = await doctorInProcess(['--oxp-url', `${fixture.url}/tools`, '--connect-timeout-ms', '1000']);
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      /✗ upstream default \(http:\/\/127\.0\.0\.1:\d+\/tools\): HTTP 404 from GET \/tools: the URL ends in \/tools, so the list was asked at \/tools\/tools; give the OXP server's base URL, without it\n/,
    );
  });

  it('fails on an invalid configuration value with the key and where it came from; exit 2 on a usage error', async () => {
    const bad = await doctorInProcess(['--page-size', 'many']);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /✗ configuration: invalid configuration: catalog\.pageSize \(from flag --page-size\): must be integer\n/);
    const usage = await doctor(['--no-such-flag']);
    assert.equal(usage.code, 2, usage.stdout + usage.stderr);
    assert.match(usage.stderr, /^mcp-oxp-bridge doctor: unknown option --no-such-flag; run mcp-oxp-bridge doctor --help for the options\n$/);
    for (const args of [['--url', 'http://127.0.0.1:9/mcp', '--oxp-url', 'http://x'], ['--args', '{}'], ['--call', 'x', '--args', '[1]'], ['--url']]) {
      assert.equal((await doctorInProcess(args)).code, 2, args.join(' '));
    }
  });
});

describe('doctor on the configurations the docs show', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
  });
  after(async () => fixture?.close());

  it('names the tools policy keys that match no tool the upstream publishes, without failing for them', async () => {
    const config = writeTempConfig(`
upstreams:
  - name: crm
    url: ${fixture.url}
    tools:
      rename: { Calculator_Add: add, Calculator_Ad: typo }
      fixedArguments: { Nothing_Here: { a: 1 } }
`);
    const run = await doctorInProcess(['--config', config]);
    assert.equal(run.code, 0, run.stdout);
    assert.match(
      run.stdout,
      /✓ upstream crm \(.*\): reachable, catalog of \d+ tools decoded\n {2}these keys of its tools policy name no tool it publishes, so they do nothing: tools\.fixedArguments\.Nothing_Here, tools\.rename\.Calculator_Ad /,
    );
  });

  it("docs/configuration.md's token exchange: valid, checked with the upstream's own credentials, the exchange said to be left out", async () => {
    // Before: "✗ configuration: upstreams[crm].tokenExchange: token exchange needs OAuth callers … auth mode none", exit 1,
    // though the bridge starts with this file: doctor's private copy had set auth.mode none and kept the exchange.
    // The example as written (docs/configuration.md, "Token exchange"), the upstream's URL pointed at the fixture.
    const config = writeTempConfig(`
auth:
  oauth: { issuer: https://id.example.com, audience: https://mcp.example.com/mcp, jwksUrl: https://id.example.com/jwks, resourceUrl: https://mcp.example.com/mcp }
upstreams:
  - name: crm
    url: ${fixture.url}
    tokenExchange:
      tokenEndpoint: https://id.example.com/oauth/token
      clientId: mcp-bridge
      clientSecret: { env: CRM_EXCHANGE_SECRET }   # or { file: /run/secrets/crm-exchange }
      audience: https://crm-tools.example.com     # and/or resource:, scope:
      use: bearer
`);
    const run = await doctorInProcess(['--config', config, '--call', 'Calculator_Add', '--args', '{"a": 2, "b": 2}'], {
      CRM_EXCHANGE_SECRET: 'crm-exchange-secret-0123456789',
    });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /✓ configuration valid/);
    assert.match(
      run.stdout,
      /\n- token exchange \(upstreams\[crm\]\): skipped \(it exchanges a caller's OAuth access token: the checks below call without one/,
    );
    assert.match(run.stdout, /✓ upstream crm \(.*\): reachable, catalog of \d+ tools decoded/);
    assert.match(run.stdout, /✓ tools\/call Calculator_Add: .*4/);
    assert.doesNotMatch(run.stdout, /crm-exchange-secret/);
    // The rule itself is still checked, on the configuration as written: over stdio there is no caller token.
    const stdio = await doctorInProcess(['--config', config, '--transport', 'stdio'], { CRM_EXCHANGE_SECRET: 'crm-exchange-secret-0123456789' });
    assert.equal(stdio.code, 1, stdio.stdout);
    assert.match(stdio.stdout, /✗ configuration: upstreams\[crm\]\.tokenExchange: token exchange needs OAuth callers .*over stdio/);
  });

  it('a file with oxpServer.enabled: checked as the oxp-server command runs it (its variables, its MCP servers, GET /tools, a call)', async () => {
    // Before: "✗ configuration: oxpServer.enabled starts the oxp-server, not the MCP bridge", exit 1, for any such file.
    const { command, args } = mcpStdioCommand();
    const file = writeTempConfig(
      JSON.stringify({ oxpServer: { enabled: true, host: '0.0.0.0', upstreams: [{ toolkit: 'Local', command: commandLine(command, args) }] } }),
    );
    const run = await doctorInProcess(['--config', file, '--call', 'Local.add', '--args', '{"a": 40, "b": 2}'], {
      OXP_SERVER_API_KEYS: 'doctor-oxp-key-0123456789',
    });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /^mcp-oxp-bridge doctor .*: checking the configured oxp-server \(config file .*\)\n/);
    assert.match(run.stdout, /✓ configuration valid \(oxp-server on 0\.0\.0\.0:8090, 1 MCP server\)/);
    assert.match(run.stdout, /✓ MCP server Local: connected \(stdio, [\d-]+\), \d+ tools/);
    assert.match(run.stdout, /✓ GET \/tools: \d+ tools \(.*Local\.add@0\.9\.1/);
    assert.match(run.stdout, /✓ POST \/tools\/call Local\.add: \{"sum":42\}/);
    assert.doesNotMatch(run.stdout, /doctor-oxp-key/);
    // Without OXP_SERVER_API_KEYS the oxp-server refuses 0.0.0.0, and doctor says so; its flags apply too (--host).
    const exposed = await doctorInProcess(['--config', file]);
    assert.equal(exposed.code, 1, exposed.stdout);
    assert.match(exposed.stdout, /✗ configuration: oxp-server would listen on 0\.0\.0\.0 without authentication/);
    const loopback = await doctorInProcess(['oxp-server', '--config', file, '--host', '127.0.0.1', '--port', '1']);
    assert.equal(loopback.code, 0, loopback.stdout);
    assert.match(loopback.stdout, /✓ configuration valid \(oxp-server on 127\.0\.0\.1:1, 1 MCP server\)/);
  });
});

describe('doctor and a tool server that refuses the credentials, or crashes', () => {
  let bearerOnly: OxpFixtureServer;
  let crashing: OxpFixtureServer;
  const KEY = 'doctor-upstream-key-0123456789';
  before(async () => {
    // Built as the official OXP clients send an API key: Authorization: Bearer only.
    bearerOnly = await startOxpFixture({ tools: demoFixtureTools(), auth: { bearer: KEY } });
    crashing = await startOxpFixture({
      tools: [
        {
          id: 'Crash.Boom',
          name: 'Crash_Boom',
          version: '1.0.0',
          description: 'crashes',
          input_schema: { type: 'object' },
          handler: () => ({ http: { status: 500, body: 'Internal Server Error', contentType: 'text/plain' } }),
        },
      ],
    });
  });
  after(async () => {
    await bearerOnly?.close();
    await crashing?.close();
  });

  it('says the credentials were refused, names both settings, and finds the style the server takes', async () => {
    const run = await doctorInProcess([], { OXP_URL: bearerOnly.url, OXP_API_KEY: KEY });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /✗ upstream default \(.*\): the tool server refused the bridge's credentials \(HTTP 401 from GET \/tools\)/);
    assert.match(
      run.stdout,
      /→ the tool server accepts the same secret sent the other way: set it as OXP_BEARER_TOKEN \(upstream\.bearerToken\) instead of OXP_API_KEY/,
    );
    assert.doesNotMatch(run.stdout, new RegExp(KEY));
    const wrong = await doctorInProcess([], { OXP_URL: bearerOnly.url, OXP_BEARER_TOKEN: 'not-the-key-0123456789' });
    assert.match(
      wrong.stdout,
      /OXP_API_KEY is sent as an OXP-API-Key header.*OXP_BEARER_TOKEN as Authorization: Bearer.*refused too, so the value itself is wrong/,
    );
  });

  it("a running bridge: /readyz's refusal gets the hint naming both settings", async () => {
    const bridge = await startHttpBridge(bearerOnly.url, [], { OXP_API_KEY: 'wrong-key-0123456789' });
    try {
      const run = await doctorInProcess(['--url', bridge.mcpUrl]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(
        run.stdout,
        /✗ upstream default: the tool server refused the bridge's credentials \(HTTP 401 from GET \/tools\)\n\s+→ the tool server refused the credentials the bridge sends\. OXP_API_KEY is sent as an OXP-API-Key header/,
      );
    } finally {
      await bridge.close();
    }
  });

  it("a tool's 500 is the tool's failure, not the arguments'", async () => {
    const run = await doctorInProcess(['--call', 'Crash_Boom'], { OXP_URL: crashing.url });
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      /✗ tools\/call Crash_Boom: the tool answered with an error: The tool failed on the tool server with an internal error \(HTTP 500\).*\n\s+→ the tool's code failed on the tool server/,
    );
    assert.doesNotMatch(run.stdout, /check the arguments/);
  });
});

describe('doctor --token: who the caller is and what it may call', () => {
  const ALICE = 'alice-doctor-token-3f9a1c0d5e7b';
  const BOB = 'bob-doctor-token-8c2e4f6a1b3d5e';
  const UNKNOWN = 'unknown-doctor-token-canary-0123';
  const POLICY = `
auth:
  tokens:
    - { name: alice, value: { env: ALICE_TOKEN }, groups: [eng] }
    - { name: bob, value: { env: BOB_TOKEN }, groups: [sales] }
access:
  rules:
    - { id: eng-all, effect: allow, principals: { groups: [eng] } }
    - { id: no-doorbell, effect: deny, tools: { names: [Doorbell_*] } }
    - { effect: deny, principals: { groups: [sales] }, tools: { oxpIds: [Gmail.*] } }
`;
  let fixture: OxpFixtureServer;
  let config: string;
  let env: Record<string, string>;
  const never = (run: Run) => {
    for (const token of [ALICE, BOB, UNKNOWN]) assert.ok(!`${run.stdout}${run.stderr}`.includes(token), 'a token in the output');
  };
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    config = writeTempConfig(POLICY);
    env = { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB, OXP_URL: fixture.url };
  });
  after(async () => fixture?.close());

  it('a named token: its principal, then every tool with the rule that lets it call it; the MCP checks list what it sees', async () => {
    const run = await doctor(['--config', config, '--token', ALICE], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    never(run);
    const tools = Number(/catalog of (\d+) tools decoded/.exec(run.stdout)?.[1]);
    assert.match(run.stdout, /✓ token: principal alice \(token; groups eng\)\n/);
    assert.match(run.stdout, new RegExp(`✓ alice may see and call ${tools} of ${tools} tools\\n`));
    assert.match(run.stdout, /\n {2}✓ Calculator_Add \(rule eng-all\)\n/);
    assert.match(run.stdout, /\n {2}✓ Doorbell_Ring \(rule eng-all\)\n/);
    assert.equal(lines(run, '✓').filter((l) => l.includes(`tools/list: ${tools} tools`)).length, REVISIONS.length);
  });

  it('another: the tools it may not call, each with the rule that denies it (by id, or by its place); still exit 0', async () => {
    const run = await doctorInProcess(['--config', config], { ...env, MCP_DOCTOR_TOKEN: BOB });
    assert.equal(run.code, 0, run.stdout);
    never(run);
    const tools = Number(/catalog of (\d+) tools decoded/.exec(run.stdout)?.[1]);
    assert.match(run.stdout, /✓ token: principal bob \(token; groups sales\)\n/);
    assert.match(run.stdout, new RegExp(`✓ bob may see and call ${tools - 2} of ${tools} tools\\n`));
    assert.match(run.stdout, /\n {2}✗ Doorbell_Ring \(denied by rule no-doorbell\)\n/);
    assert.match(run.stdout, /\n {2}✗ Gmail_GetEmails \(denied by rule access\.rules\[2\]\)\n/);
    assert.match(run.stdout, /\n {2}✓ Calculator_Add \(access\.default: allow\)\n/);
    assert.equal(lines(run, '✓').filter((l) => l.includes(`tools/list: ${tools - 2} tools`)).length, REVISIONS.length, 'the real lists agree');
  });

  it('an unknown token: a failed step saying so, exit 1, the token never printed', async () => {
    const run = await doctor(['--config', config, '--token', UNKNOWN], env);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    never(run);
    assert.match(run.stdout, /✗ token: the bridge would refuse it: it is none of the configured tokens\n\s+→ check the value/);
    assert.doesNotMatch(run.stdout, /may see and call/);
  });

  it('no authentication configured: the token is not checked and the caller is the anonymous principal', async () => {
    const run = await doctorInProcess(['--token', UNKNOWN], { OXP_URL: fixture.url });
    assert.equal(run.code, 0, run.stdout);
    never(run);
    assert.match(run.stdout, /✓ token: not checked \(auth mode none: every caller is the anonymous principal anonymous \(anonymous\)\)/);
    assert.match(run.stdout, /✓ anonymous may see and call \d+ of \d+ tools \(no access rules\)/);
  });

  it('--url: the principal as the running bridge names it, or that it does not say', async () => {
    const loaded = loadConfig(['--config', config, '--port', '0', '--log-level', 'silent'], env);
    if (typeof loaded === 'string') throw new Error(loaded);
    const running = await startBridge(loaded.config, createLogger('silent'), env);
    const loadedOff = loadConfig(['--config', config, '--port', '0', '--log-level', 'silent', '--console', 'false'], env);
    if (typeof loadedOff === 'string') throw new Error(loadedOff);
    const consoleOff = await startBridge(loadedOff.config, createLogger('silent'), env);
    try {
      const named = await doctorInProcess(['--url', running.mcpUrl!], { MCP_DOCTOR_TOKEN: BOB });
      assert.equal(named.code, 0, named.stdout);
      never(named);
      assert.match(named.stdout, /✓ token: principal bob \(token; groups sales\), as the bridge names it\n/);
      const unsaid = await doctorInProcess(['--url', consoleOff.mcpUrl!, '--token', BOB]);
      assert.equal(unsaid.code, 0, unsaid.stdout);
      assert.match(unsaid.stdout, /- token: which principal: skipped \(the bridge does not say/);
      assert.doesNotMatch(unsaid.stdout, /principal bob/);
    } finally {
      await running.close();
      await consoleOff.close();
    }
  });
});

describe('doctor --token with OAuth', () => {
  const AUDIENCE = 'http://127.0.0.1/mcp';
  let as: OAuthServer;
  let fixture: OxpFixtureServer;
  const oauthConfig = (jwksUrl: string) =>
    writeTempConfig(
      `auth:\n  oauth: { issuer: '${as.issuer}', audience: '${AUDIENCE}', jwksUrl: '${jwksUrl}', resourceUrl: '${AUDIENCE}' }\n` +
        `access:\n  rules:\n    - { id: no-oauth-doorbell, effect: deny, principals: { kinds: [oauth] }, tools: { names: [Doorbell_*] } }\n`,
    );
  before(async () => {
    as = await startOAuthServer({ bridgeAudience: AUDIENCE, bridgeClient: { id: 'bridge', secret: 'bridge-secret-0123456789' }, upstreamAudiences: [] });
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
  });
  after(async () => {
    await fixture?.close();
    await as?.close();
  });

  it("a JWT verified against the issuer's keys names the user; an expired one is refused; keys out of reach are said to be", async () => {
    const env = { OXP_URL: fixture.url };
    const token = await as.mintUserToken('carol@example.com');
    const run = await doctorInProcess(['--config', oauthConfig(as.jwksUrl), '--token', token], env);
    assert.equal(run.code, 0, run.stdout);
    assert.ok(!run.stdout.includes(token));
    assert.match(run.stdout, /✓ token: principal carol@example\.com \(oauth\)\n/);
    assert.match(run.stdout, /\n {2}✗ Doorbell_Ring \(denied by rule no-oauth-doorbell\)\n/);

    const expired = await as.mintUserToken('carol@example.com', { expiredSecondsAgo: 120 });
    const refused = await doctorInProcess(['--config', oauthConfig(as.jwksUrl), '--token', expired], env);
    assert.equal(refused.code, 1, refused.stdout);
    assert.ok(!refused.stdout.includes(expired));
    assert.match(
      refused.stdout,
      /✗ token: the bridge would refuse it: Invalid or expired token\n\s+→ it must be an unexpired JWT access token from http:\/\/127\.0\.0\.1:\d+ for audience/,
    );

    const unreachable = `http://127.0.0.1:${await closedPort()}/jwks`;
    const offline = await doctorInProcess(['--config', oauthConfig(unreachable), '--token', token], env);
    assert.equal(offline.code, 1, offline.stdout);
    assert.match(
      offline.stdout,
      /✗ token: cannot verify the OAuth access token here: the issuer's keys \(http:\/\/127\.0\.0\.1:\d+\/jwks\) could not be read: /,
    );
    assert.ok(!offline.stdout.includes(token));
  });
});

function writeTempConfig(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'doctor-token-')), 'bridge.yaml');
  writeFileSync(file, text);
  return file;
}
