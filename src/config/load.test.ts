import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, USAGE, type LoadedConfig } from './load.js';
import { OXP_SERVER_COMMAND } from './oxp-server-settings.js';
import { CONFIG_SCHEMA } from './schema.js';

const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(argv, env) as LoadedConfig;
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'bridge-config-')), 'bridge.yaml');
  writeFileSync(path, text);
  return path;
};

describe('loadConfig', () => {
  it('fills defaults from the schema', () => {
    const { config } = load([]);
    assert.equal(config.transport, 'http');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.upstream.callTimeoutMs, 300_000);
    assert.equal(config.upstream.apiKeyHeader, 'OXP-API-Key');
    assert.equal(config.upstream.url, undefined);
  });

  it('merges file < env < flags', () => {
    const path = file('port: 1000\nhost: 0.0.0.0\nupstream:\n  url: http://file:1\n  callTimeoutMs: 5000\n');
    const { config, file: used } = load(['--config', path, '--port', '3000'], { MCP_PORT: '2000', OXP_URL: 'http://env:2' });
    assert.equal(used, path);
    assert.equal(config.port, 3000);
    assert.equal(config.upstream.url, 'http://env:2');
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.upstream.callTimeoutMs, 5000);
  });

  it('reads the file named by BRIDGE_CONFIG, YAML or JSON, and comma lists', () => {
    const path = file('{"http": {"allowedHosts": ["a.example"]}}');
    const { config } = load(['--allowed-origins', 'x.example, y.example'], { BRIDGE_CONFIG: path });
    assert.deepEqual(config.http.allowedHosts, ['a.example']);
    assert.deepEqual(config.http.allowedOrigins, ['x.example', 'y.example']);
  });

  it('takes secrets from the environment only', () => {
    const { config } = load([], { OXP_API_KEY: 'k', OXP_JWT_SECRET: 's'.repeat(32) });
    assert.equal(config.upstream.apiKey, 'k');
    assert.throws(() => load(['--oxp-api-key', 'k']), ConfigError);
  });

  it('fails fast naming the key, its source and what is allowed', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--transport', 'carrier-pigeon'], {}, /transport \(from flag --transport\): must be one of: http, stdio/],
      [[], { MCP_PORT: '70000' }, /port \(from environment variable MCP_PORT\): must be <= 65535/],
      [['--oxp-url', 'ftp://x'], {}, /upstream\.url \(from flag --oxp-url\): must be an http:\/\/ or https:\/\/ URL/],
      [['--config', file('upstream:\n  colour: blue\n')], {}, /upstream\.colour \(from config file .*\): is not a known key/],
      [['--port', 'eighty'], {}, /port \(from flag --port\): must be integer/],
    ];
    for (const [argv, env, message] of cases)
      assert.throws(
        () => load(argv, env),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
        String(message),
      );
  });

  it('suggests the closest known key for a mistyped key at every depth, as for a flag, else names the keys allowed there', () => {
    const cases: [string, string][] = [
      ['loglevel: info\n', 'loglevel (from config file FILE): is not a known key (did you mean logLevel?)'],
      ['upstream:\n  ur: http://127.0.0.1:1\n', 'upstream.ur (from config file FILE): is not a known key (did you mean url?)'],
      ['console:\n  enable: true\n', 'console.enable (from config file FILE): is not a known key (did you mean enabled?)'],
      // Under a list and a `$ref` (the validator's schema path is then relative to `$defs/tokenExchange`).
      [
        'upstreams:\n  - name: a\n    url: http://127.0.0.1:1\n    tokenExchange: {tokenEndpont: http://127.0.0.1:2, clientId: c, clientSecret: {env: X}, use: bearer}\n',
        'upstreams.0.tokenExchange.tokenEndpont (from config file FILE): is not a known key (did you mean tokenEndpoint?)',
      ],
      [
        'access:\n  rules:\n    - {effect: allow, tols: {names: [x]}}\n',
        'access.rules.0.tols (from config file FILE): is not a known key (did you mean tools?)',
      ],
      // Under a map's names (oxpServer.upstreams[].tools.<MCP tool name>).
      [
        'oxpServer:\n  upstreams:\n    - {command: x, tools: {add: {versoin: 1.0.0}}}\n',
        'oxpServer.upstreams.0.tools.add.versoin (from config file FILE): is not a known key (did you mean version?)',
      ],
      ['console:\n  colour: blue\n', 'console.colour (from config file FILE): is not a known key; known here: enabled, showArguments, recentCalls'],
    ];
    for (const [text, expected] of cases) {
      const path = file(text);
      assert.throws(
        () => load(['--config', path]),
        (e: Error) => e.message.split('\n').some((line) => line.replace(/^invalid configuration: |^ {2}/, '') === expected.replace('FILE', path)),
        expected,
      );
    }
  });

  it('--help: every option row has its description and its variable in the same columns (both commands)', () => {
    for (const usage of [USAGE, OXP_SERVER_COMMAND.usage]) {
      const rows = usage.split('\n').filter((l) => /^ {2}--.* [A-Z][A-Z0-9_]+( \(.*\))?$/.test(l));
      assert.ok(rows.length > 10, usage);
      // The description after two spaces at least, the variable after one.
      const columns = rows.map((l) => [/^ {2}--\S+( \S+)? {2,}/.exec(l)?.[0].length, / ([A-Z][A-Z0-9_]+)( \(.*\))?$/.exec(l)!.index + 1]);
      for (const [i, row] of rows.entries()) assert.deepEqual(columns[i], columns[0], `out of line:\n${rows[0]!}\n${row}`);
    }
  });

  it('reports unreadable and malformed files', () => {
    assert.throws(() => load(['--config', '/nonexistent/bridge.yaml']), /cannot read the config file/);
    assert.throws(() => load(['--config', file('a: [')]), /not valid YAML/);
    assert.throws(() => load(['--config', file('- a\n- b\n')]), /mapping/);
  });

  it('says what is wrong in words, one line for one problem: no pattern, no schema noise of forms the value is not', () => {
    const message = (argv: string[], env: Record<string, string> = {}) => {
      try {
        load(argv, env);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error(`${argv.join(' ')} loaded`);
    };
    // A token too short: before, three lines (too short, "must be object", "must match exactly one schema in oneOf").
    assert.equal(
      message([], { MCP_AUTH_TOKENS: 'abc' }),
      'invalid configuration: auth.tokens.0 (from environment variable MCP_AUTH_TOKENS): is too short for a secret: at least 16 characters (`openssl rand -hex 32` makes one)',
    );
    // A bad URL: before, "must match ^https?://[^\s]+$".
    assert.equal(
      message(['--oxp-url', 'localhost:8000']),
      'invalid configuration: upstream.url (from flag --oxp-url): must be an http:// or https:// URL, e.g. http://127.0.0.1:8000',
    );
    const several = message([
      '--config',
      file('upstreams:\n  - { name: "a b", url: "http://x", apiKey: {} }\n  - { name: c, url: "http://x", apiKey: { env: "" } }\n'),
    ]);
    assert.match(several, /^invalid configuration:\n {2}upstreams\.0\.name \(from config file .*\): may only use letters, digits, _ and - \(at most 32\)\n/);
    assert.match(several, /\n {2}upstreams\.0\.apiKey \(from config file .*\): needs env or file\n/);
    assert.match(several, /\n {2}upstreams\.1\.apiKey\.env \(from config file .*\): must not be empty\n/);
    assert.doesNotMatch(several, /oneOf|must match|must be object|additional properties/);
  });

  it('a config file that is not there: its path, "no such file", and what to do (before: only ENOENT)', () => {
    assert.throws(
      () => load(['--config', 'no-such-dir/bridge.yaml']),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message ===
          `cannot read the config file no-such-dir/bridge.yaml (${join(process.cwd(), 'no-such-dir/bridge.yaml')}): no such file; check the path given by --config (a relative path is read from the current directory), or copy an example from the config/ folder (bridge.example.yaml, oxp-server.example.yaml)`,
    );
    assert.throws(() => load([], { BRIDGE_CONFIG: tmpdir() }), /: it is a directory; BRIDGE_CONFIG names the YAML or JSON file itself$/);
  });

  it('answers --help and --version', () => {
    assert.equal(loadConfig(['--help'], {}), 'help');
    assert.equal(loadConfig(['--version'], {}), 'version');
  });
});

it('config/config.schema.json is generated from src/config/schema.ts (npm run config:schema)', () => {
  const committed = JSON.parse(readFileSync(new URL('../../config/config.schema.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(CONFIG_SCHEMA)));
});

it('config/bridge.example.yaml is a valid configuration', () => {
  const loaded = loadConfig(['--config', new URL('../../config/bridge.example.yaml', import.meta.url).pathname], {});
  assert.ok(typeof loaded !== 'string');
});

describe('loadConfig: a command chosen by the config file', () => {
  const spec = (env: string) => ({ settings: [{ path: ['oxpServer', 'port'], flag: 'port', env }], usage: 'chosen usage' });
  const chosen = spec('CHOSEN_PORT');
  const write = (config: Record<string, unknown>) => {
    const path = join(mkdtempSync(join(tmpdir(), 'choice-')), 'c.json');
    writeFileSync(path, JSON.stringify(config));
    return path;
  };
  const choose = (file: Record<string, unknown>) => ((file.oxpServer as { enabled?: unknown } | undefined)?.enabled === true ? chosen : undefined);

  it("applies the chosen command's flags and variables, from --config or BRIDGE_CONFIG", () => {
    const path = write({ oxpServer: { enabled: true } });
    const byFlag = loadConfig(['--config', path, '--port', '9101'], {}, choose) as LoadedConfig;
    assert.equal(byFlag.command, chosen);
    assert.equal(byFlag.config.oxpServer.port, 9101);
    const byEnv = loadConfig([], { BRIDGE_CONFIG: path, CHOSEN_PORT: '9102' }, choose) as LoadedConfig;
    assert.equal(byEnv.config.oxpServer.port, 9102);
    const byEquals = loadConfig([`--config=${path}`], { CHOSEN_PORT: '9103' }, choose) as LoadedConfig;
    assert.equal(byEquals.config.oxpServer.port, 9103);
  });

  it('falls back to the forward command when the file chooses none, and answers --help without reading a file', () => {
    const loaded = loadConfig(['--config', write({ port: 9104 })], {}, choose) as LoadedConfig;
    assert.notEqual(loaded.command, chosen);
    assert.equal(loaded.config.port, 9104);
    assert.equal(loadConfig(['--help'], { BRIDGE_CONFIG: '/nonexistent/file.yaml' }, choose), 'help');
  });
});

it('a configured header value that HTTP cannot carry is a configuration error naming the key, never the value', () => {
  const path = file('oxpServer:\n  upstreams:\n    - { url: "https://x.example/mcp", headers: { Authorization: "Bearer SECRET…", "Bad Name": x } }\n');
  assert.throws(
    () => loadConfig(['--config', path], {}),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message.includes(`oxpServer.upstreams.0.headers.Authorization (from config file ${path}): the character at index 13 (U+2026 "…") cannot be sent`) &&
      e.message.includes('oxpServer.upstreams.0.headers.Bad Name') &&
      !e.message.includes('SECRET'),
  );
  assert.throws(
    () => loadConfig([], { OXP_BEARER_TOKEN: 'tok\nen' }),
    (e: Error) =>
      e instanceof ConfigError && /upstream\.bearerToken \(from environment variable OXP_BEARER_TOKEN\): the character at index 3 \(U\+000A\)/.test(e.message),
  );
  assert.ok(typeof loadConfig([], { OXP_API_KEY: 'Latin-1 is fine: café' }) !== 'string');
});
