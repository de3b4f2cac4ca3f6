import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, type LoadedConfig } from './load.js';
import { OXP_SERVER_COMMAND, parseCommandFlag, parseUrlFlag, targetOf, upstreamLabel } from './oxp-server-settings.js';

const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(argv, env, OXP_SERVER_COMMAND) as LoadedConfig;
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'oxp-server-config-')), 'bridge.yaml');
  writeFileSync(path, text);
  return path;
};

describe('oxp-server configuration', () => {
  it('has defaults: loopback, port 8090, no upstreams, no auth', () => {
    const { config } = load([]);
    assert.deepEqual(
      {
        host: config.oxpServer.host,
        port: config.oxpServer.port,
        upstreams: config.oxpServer.upstreams,
        apiKeys: config.oxpServer.apiKeys,
        enabled: config.oxpServer.enabled,
      },
      { host: '127.0.0.1', port: 8090, upstreams: [], apiKeys: undefined, enabled: false },
    );
  });

  it('takes --mcp-url and --mcp-command in command-line order, each with an optional TOOLKIT= prefix', () => {
    const { config } = load([
      '--mcp-url',
      'http://a.example/mcp',
      '--mcp-command',
      'Files=npx -y @scope/files "/my dir"',
      '--mcp-url',
      'Web=https://b.example/mcp?x=1&y=2',
    ]);
    assert.deepEqual(config.oxpServer.upstreams, [
      { url: 'http://a.example/mcp' },
      { toolkit: 'Files', command: 'npx -y @scope/files "/my dir"' },
      { toolkit: 'Web', url: 'https://b.example/mcp?x=1&y=2' },
    ]);
    assert.deepEqual(targetOf(config.oxpServer.upstreams[1]!), { kind: 'stdio', command: 'npx', args: ['-y', '@scope/files', '/my dir'] });
    assert.deepEqual(targetOf(config.oxpServer.upstreams[2]!), { kind: 'http', url: 'https://b.example/mcp?x=1&y=2', transport: 'auto' });
  });

  it('parses the toolkit prefix only where it is one', () => {
    assert.deepEqual(parseUrlFlag('http://x/a=b'), { url: 'http://x/a=b' });
    assert.deepEqual(parseCommandFlag('node server.js --opt=1'), { command: 'node server.js --opt=1' });
    assert.deepEqual(parseCommandFlag('My_Kit=node s.js'), { toolkit: 'My_Kit', command: 'node s.js' });
  });

  it("upstream flags replace the file's list; the file alone configures everything, including selecting the subcommand", () => {
    const path = file(`oxpServer:
  enabled: true
  port: 9100
  jwtAudiences: [otcserver]
  upstreams:
    - { toolkit: Files, command: node, args: [server.js, --flag], env: { A: b }, cwd: /srv }
    - { url: "http://c.example/sse", transport: sse, headers: { X-Key: k } }
`);
    const fromFile = load(['--config', path]).config.oxpServer;
    assert.equal(fromFile.enabled, true);
    assert.equal(fromFile.port, 9100);
    assert.deepEqual(targetOf(fromFile.upstreams[0]!), { kind: 'stdio', command: 'node', args: ['server.js', '--flag'], env: { A: 'b' }, cwd: '/srv' });
    assert.deepEqual(targetOf(fromFile.upstreams[1]!), { kind: 'http', url: 'http://c.example/sse', transport: 'sse', headers: { 'X-Key': 'k' } });
    const overridden = load(['--config', path, '--mcp-url', 'http://d.example/mcp']).config.oxpServer;
    assert.deepEqual(overridden.upstreams, [{ url: 'http://d.example/mcp' }]);
    // The main command reads the same file: `mcp-oxp-bridge --config FILE` starts the oxp-server.
    assert.equal((loadConfig(['--config', path], {}) as LoadedConfig).config.oxpServer.enabled, true);
  });

  it('reads keys and secrets from the environment (comma-separated keys), flags beating them', () => {
    const env = {
      OXP_SERVER_API_KEYS: 'k1-0123456789abcdef, k2-0123456789abcdef',
      OXP_SERVER_JWT_SECRET: 's-0123456789abcdef',
      OXP_SERVER_JWT_AUDIENCES: 'a,b',
    };
    const fromEnv = load([], env).config.oxpServer;
    assert.deepEqual(fromEnv.apiKeys, ['k1-0123456789abcdef', 'k2-0123456789abcdef']);
    assert.equal(fromEnv.jwtSecret, 's-0123456789abcdef');
    assert.deepEqual(fromEnv.jwtAudiences, ['a', 'b']);
    assert.deepEqual(load(['--api-key', 'k3-0123456789abcdef'], env).config.oxpServer.apiKeys, ['k3-0123456789abcdef']);
  });

  it('refuses bad values with the key, where it came from, and what is allowed', () => {
    const refused = (argv: string[], pattern: RegExp, env: Record<string, string> = {}) =>
      assert.throws(
        () => load(argv, env),
        (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
        argv.join(' '),
      );
    refused(['--mcp-url', 'ftp://x'], /^--mcp-url "ftp:\/\/x": expected \[TOOLKIT=\]URL with an http:\/\/ or https:\/\/ URL$/);
    refused(['--mcp-url', 'Bad-Kit=http://x'], /the toolkit name "Bad-Kit" may only use letters, digits and _ \(at most 32\), e\.g\. "Bad_Kit"/);
    refused(['--mcp-command', 'Bad.Kit=node s.js'], /^--mcp-command .*the toolkit name "Bad\.Kit"/);
    refused(['--mcp-url', 'Kit='], /nothing after "Kit="/);
    refused(
      ['--config', file('oxpServer:\n  upstreams:\n    - { url: "http://x", tools: { rename: { a: "b c" } } }\n')],
      /oxpServer\.upstreams\.0\.tools\.rename\.a .*may only use letters, digits, _ and - \(at most 64\)/,
    );
    refused(['--api-key', 'short'], /oxpServer\.apiKeys\.0 \(from flag --api-key\): is too short for a secret: at least 16 characters/);
    refused(['--port', '70000'], /oxpServer\.port \(from flag --port\): must be <= 65535/);
    refused(['--transport', 'stdio'], /^unknown option --transport; run mcp-oxp-bridge oxp-server --help for the options$/);
    refused(
      ['--config', file('oxpServer:\n  upstreams:\n    - { url: "http://x", command: node }\n')],
      /oxpServer\.upstreams\.0 \(from config file .*\): takes more than one of its forms at once: keep the keys of one/,
    );
  });
});

it('config/oxp-server.example.yaml is a valid configuration that selects the oxp-server', () => {
  const { config } = load(['--config', new URL('../../config/oxp-server.example.yaml', import.meta.url).pathname]);
  assert.equal(config.oxpServer.enabled, true);
  assert.deepEqual(
    config.oxpServer.upstreams.map((u) => targetOf(u).kind),
    ['stdio', 'stdio', 'http'],
  );
  assert.deepEqual(targetOf(config.oxpServer.upstreams[1]!), {
    kind: 'stdio',
    command: 'node',
    args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'],
  });
});

it('labels upstreams for logs without credentials a URL or command line may carry', () => {
  assert.equal(upstreamLabel({ toolkit: 'Kit', url: 'https://u:p@x.example/mcp?token=1' }), 'Kit');
  assert.equal(upstreamLabel({ url: 'https://u:p@x.example/mcp?token=1' }), 'https://x.example/mcp');
  assert.equal(upstreamLabel({ command: 'server --token=secret' }), 'server');
});
