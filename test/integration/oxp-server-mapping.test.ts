/**
 * The oxp-server's MCP → OXP mapping, row by row, over real HTTP, against a
 * real MCP server reached three ways: Streamable HTTP (negotiated 2026-07-28),
 * Streamable HTTP with 2025 sessions (negotiated 2025-11-25), and a stdio
 * child process. Every body is validated against the OXP OpenAPI schemas.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_URL, IMAGE, mcpStdioCommand, startMcpHttpFixture, type FixtureCatalog } from '../fixtures/mcp-fixture-server.js';
import { commandLine, startTestOxpServer, writeConfigFile, type OxpClient, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/log.js';
import { loadConfig } from '../../src/config/load.js';
import { OXP_SERVER_COMMAND } from '../../src/config/oxp-server-settings.js';

interface UpstreamKind {
  label: string;
  era: 'modern' | 'legacy';
  version: string;
  start(): Promise<{ args: string[]; catalog?: FixtureCatalog; close(): Promise<void> }>;
}

const KINDS: UpstreamKind[] = [
  {
    label: 'Streamable HTTP upstream (2026-07-28)',
    era: 'modern',
    version: '2.3.4',
    start: async () => {
      const f = await startMcpHttpFixture({ version: '2.3.4' });
      return { args: ['--mcp-url', `Fx=${f.url}`], catalog: f.catalog, close: () => f.close() };
    },
  },
  {
    label: 'Streamable HTTP upstream with 2025 sessions (2025-11-25)',
    era: 'legacy',
    version: '1.4.0',
    start: async () => {
      const f = await startMcpHttpFixture({ legacyOnly: true, version: '1.4.0' });
      return { args: ['--mcp-url', `Fx=${f.url}`], catalog: f.catalog, close: () => f.close() };
    },
  },
  {
    label: 'stdio child upstream (2026-07-28)',
    era: 'modern',
    version: '0.9.1',
    start: async () => {
      const { command, args } = mcpStdioCommand();
      return { args: ['--mcp-command', `Fx=${commandLine(command, args)}`], close: async () => undefined };
    },
  },
];

/** The OXP id of a fixture tool: characters outside [A-Za-z0-9_] become `_` (no hash: the fixture's names do not collide). */
function idOf(mcpName: string, version: string): string {
  return `Fx.${mcpName.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64)}@${version}`;
}

const IMAGE_PART = { contentEncoding: 'base64', contentMediaType: IMAGE.mimeType, data: IMAGE.data };

for (const kind of KINDS) {
  describe(`oxp-server mapping: ${kind.label}`, () => {
    let upstream: Awaited<ReturnType<UpstreamKind['start']>>;
    let server: TestOxpServer;
    let client: OxpClient;
    let tools: Record<string, unknown>[];
    const id = (mcpName: string) => idOf(mcpName, kind.version);

    before(async () => {
      upstream = await kind.start();
      server = await startTestOxpServer(upstream.args);
      client = server.client;
      tools = await client.list();
    });
    after(async () => {
      await server?.close();
      await upstream?.close();
    });

    it(`negotiates ${kind.era === 'modern' ? '2026-07-28' : '2025-11-25'} with the upstream`, async () => {
      assert.equal((await client.result(id('which_era'))).value, kind.era);
      assert.equal(server.upstreams.status()[0]!.era, kind.era);
    });

    it('lists each MCP tool as a ToolDefinition with a grammar-valid Toolkit.Tool@x.y.z id and the server version', () => {
      const ids = tools.map((t) => String(t.id));
      for (const t of tools) {
        assert.equal(t.version, kind.version);
        assert.ok(String(t.id).endsWith(`@${kind.version}`));
      }
      assert.ok(ids.includes(`Fx.add@${kind.version}`));
      assert.ok(ids.includes(`Fx.make_image@${kind.version}`));
      for (const name of ['echo-text', 'split.words', 'count/words', 'größe']) assert.ok(ids.includes(id(name)), `${name} → ${id(name)}`);
      assert.ok(ids.includes(`Fx.long_${'x'.repeat(59)}@${kind.version}`), 'over-long name cut to 64');
      assert.equal(new Set(ids).size, ids.length);
      const add = tools.find((t) => t.id === `Fx.add@${kind.version}`)!;
      assert.equal(add.name, 'add');
      assert.equal(tools.find((t) => t.id === id('echo-text'))!.name, 'echo-text', 'OXP names allow hyphens: the MCP name is kept');
      assert.deepEqual((tools.find((t) => t.id === id('größe'))!.input_schema as Record<string, unknown>)['x-mcp'], { title: 'Größe' });
      assert.deepEqual(add.input_schema, {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      });
      assert.deepEqual(add.output_schema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    });

    it('unwraps the {result} wrapping of a non-object output schema (and leaves tools without one without output_schema)', () => {
      const split = tools.find((t) => t.id === id('split.words'))!;
      assert.deepEqual(split.output_schema, { type: 'array', items: { type: 'string' } });
      assert.ok(!('output_schema' in tools.find((t) => t.id === id('echo-text'))!));
    });

    it('structuredContent → value, with call_id echoed and duration measured', async () => {
      const result = await client.result(id('add'), { a: 2, b: 3 }, { call_id: 'call-123' });
      assert.deepEqual(result, { call_id: 'call-123', duration: result.duration, success: true, value: { sum: 5 } });
      assert.ok(typeof result.duration === 'number' && result.duration >= 0);
    });

    it('non-object structuredContent → the bare value (unwrapped from {result} in the 2025 era)', async () => {
      assert.deepEqual((await client.result(id('split.words'), { text: 'to be or not' })).value, ['to', 'be', 'or', 'not']);
    });

    it('a single text block → its text; parsed as JSON when the output schema declares a non-string', async () => {
      assert.equal((await client.result(id('echo-text'), { text: '{"not":"parsed"}' })).value, '{"not":"parsed"}');
      assert.equal((await client.result(id('count/words'), { text: 'one two three' })).value, 3);
    });

    it('other content → JSON Schema content parts (one alone, else an array); no content → null', async () => {
      assert.deepEqual((await client.result(id('make_image'), {})).value, IMAGE_PART);
      assert.deepEqual((await client.result(id('mixed'), {})).value, ['a picture:', IMAGE_PART]);
      assert.equal((await client.result(id('nothing'), {})).value, null);
    });

    it('embedded resources, a resource link and annotated text → readable parts, what they leave out under x-mcp', async () => {
      assert.deepEqual((await client.result(id('resources'), {})).value, [
        { uri: 'file:///notes.md', contentMediaType: 'text/markdown', text: '# Notes' },
        { uri: 'file:///notes.bin', contentEncoding: 'base64', data: 'AAEC' },
        { uri: 'file:///notes.md', name: 'notes.md', contentMediaType: 'text/markdown' },
        { text: 'Saved.', 'x-mcp': { type: 'text', annotations: { audience: ['user'], priority: 0.9 } } },
      ]);
    });

    it('isError → 200 success:false with the message from the text', async () => {
      const result = await client.result(id('fail'), {});
      assert.equal(result.success, false);
      assert.deepEqual(result.error, { message: 'The doorbell is not connected.' });
    });

    it('an error thrown in the MCP handler (-32603) → 200 success:false, the detail only in developer_message', async () => {
      const error = (await client.result(id('throws'), {})).error as Record<string, string>;
      assert.equal(error.message, 'The tool failed unexpectedly.');
      assert.match(error.developer_message!, /kaboom/);
    });

    it('a URL elicitation requirement → 400 missing_requirements.authorization [{id, url}]', async () => {
      const reply = await client.call(id('needs_auth'), {});
      assert.equal(reply.status, 400);
      assert.deepEqual(reply.body.missing_requirements, { authorization: [{ id: 'github-login', url: AUTH_URL }] });
      assert.match(String(reply.body.message), /authorization/);
    });

    it('arguments failing the input schema → 422 parameter_errors per parameter, before any upstream call', async () => {
      const before = upstream.catalog?.calls.length;
      const reply = await client.call(`Fx.add@${kind.version}`, { a: 1, b: 'two', c: 3 });
      assert.equal(reply.status, 422);
      assert.deepEqual(reply.body, {
        $schema: 'urn:oxp:1.0',
        message: 'Some input parameters are invalid',
        parameter_errors: { b: 'must be number', c: 'is not an accepted parameter' },
      });
      const missing = await client.call(`Fx.add@${kind.version}`, { a: 1 });
      assert.deepEqual(missing.body.parameter_errors, { b: "must have required property 'b'" });
      assert.equal(upstream.catalog?.calls.length, before, 'the MCP server was not called');
    });

    it('an unknown tool or version → 400', async () => {
      for (const toolId of ['Fx.nope', 'Nope.add', `Fx.add@${Number(kind.version.split('.')[0]) + 1}`, 'Fx.add@9.9.9']) {
        const reply = await client.call(toolId, {});
        assert.equal(reply.status, 400, toolId);
        assert.equal(reply.body.message, `Tool '${toolId}' was not found`);
      }
    });
  });
}

describe('oxp-server tool policy: the keys docs/oxp-server.md uses', () => {
  it('descriptions keyed by the MCP name, the rename, or the OXP id; a key that names no tool is a warning at start and on reload', async () => {
    const fixture = await startMcpHttpFixture({ version: '1.0.0' });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('warn', new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
    const config = writeConfigFile({
      oxpServer: {
        upstreams: [
          {
            toolkit: 'Fx',
            url: fixture.url,
            tools: {
              // The docs' example: rename, then describe the tool by its new name.
              rename: { 'echo-text': 'read', 'gone-tool': 'gone' },
              descriptions: {
                read: 'Reads, by its rename.',
                add: 'Adds, by its MCP name.',
                'Fx.nothing': 'Nothing, by its id.',
                'Fx.mixed@1.0.0': 'Mixed, by its versioned id.',
                constructor: 'names no tool',
                reed: 'a typo',
              },
              ghost: { version: '2.0.0' },
            },
          },
        ],
      },
    });
    const server = await startTestOxpServer(['--config', config], {}, log);
    try {
      const described = Object.fromEntries((await server.client.list()).map((t) => [String(t.id), t.description]));
      assert.equal(described['Fx.read@1.0.0'], 'Reads, by its rename.');
      assert.equal(described['Fx.add@1.0.0'], 'Adds, by its MCP name.');
      assert.equal(described['Fx.nothing@1.0.0'], 'Nothing, by its id.');
      assert.equal(described['Fx.mixed@1.0.0'], 'Mixed, by its versioned id.');
      const unmatched = ['tools.descriptions.constructor', 'tools.descriptions.reed', 'tools.ghost', 'tools.rename.gone-tool'];
      const warned = () => lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('tool policy keys that name no tool'));
      assert.deepEqual(
        warned().map((l) => [l.level, l.upstream, l.keys]),
        [[40, 'Fx', unmatched]],
      );
      // A refresh that lists the same tools says nothing again; a configuration reload says it again.
      await server.upstreams.settled();
      assert.equal(warned().length, 1);
      const reloaded = loadConfig(['--config', config], {}, OXP_SERVER_COMMAND);
      assert.ok(typeof reloaded !== 'string');
      await server.applyConfig(reloaded.config);
      assert.deepEqual(
        warned().map((l) => l.keys),
        [unmatched, unmatched],
      );
    } finally {
      await server.close();
      await fixture.close();
    }
  });
});
