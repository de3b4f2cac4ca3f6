/**
 * Config file hot reload: adding an upstream and changing a tool policy take
 * effect without a restart; a bad file is rejected with a log line and the
 * running configuration keeps serving; keys that need a restart are named.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { watchConfigFile } from '../../src/config/reload.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, until } from '../helpers/bridge-harness.js';

describe('config hot reload', () => {
  it('applies a new upstream and policy, rejects a bad file, keeps serving', async () => {
    const a = await startOxpFixture({ tools: demoFixtureTools() });
    const b = await startOxpFixture({
      tools: [
        {
          id: 'Extra.Tool',
          name: 'Extra_Tool',
          version: '1.0.0',
          description: 'from b',
          input_schema: { type: 'object' },
          output_schema: { type: 'string' },
          handler: () => ({ value: 'b' }),
        },
      ],
    });
    const file = join(mkdtempSync(join(tmpdir(), 'bridge-reload-')), 'bridge.yaml');
    const write = (text: string) => writeFileSync(file, text);
    write(`port: 0\nlogLevel: info\nupstreams:\n  - { name: a, url: "${a.url}" }\n`);
    const argv = ['--config', file];
    const logs: string[] = [];
    const log = createLogger('info', new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) }));
    const bridge = await startBridge((loadConfig(argv, {}) as LoadedConfig).config, log);
    const stop = watchConfigFile(file, argv, {}, (next) => bridge.applyConfig(next), log, 50);
    const names = async () => {
      const res = await fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const [msg] = await readMessages(res);
      return ((msg!.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    };
    try {
      assert.ok((await names()).includes('Calculator_Add'));
      assert.ok(!(await names()).includes('Extra_Tool'));

      // Add an upstream and deny a tool of the first one.
      write(`port: 0\nlogLevel: info\nupstreams:\n  - { name: a, url: "${a.url}", tools: { deny: ["Calculator_*"] } }\n  - { name: b, url: "${b.url}" }\n`);
      await until(async () => {
        const n = await names();
        return n.includes('Extra_Tool') && !n.includes('Calculator_Add');
      });

      // A bad file: rejected, logged, the running configuration stays.
      write(`port: 0\nupstreams:\n  - { name: a, url: "ftp://nope" }\n`);
      await until(async () => logs.some((l) => l.includes('configuration file rejected')));
      assert.match(
        logs.find((l) => l.includes('configuration file rejected'))!,
        /upstreams\.0\.url/,
      );
      assert.ok((await names()).includes('Extra_Tool'), 'still serving the last good configuration');

      // A change that needs a restart is applied where possible and named.
      write(`port: 9999\nlogLevel: info\nupstreams:\n  - { name: a, url: "${a.url}" }\n`);
      await until(async () => logs.some((l) => l.includes('take effect only after a restart')));
      assert.match(
        logs.find((l) => l.includes('take effect only after a restart'))!,
        /"keys":\["port"\]/,
      );
      await until(async () => (await names()).includes('Calculator_Add'));
    } finally {
      stop();
      await bridge.close();
      await a.close();
      await b.close();
    }
  });
});
