/**
 * Config file hot reload: adding an upstream and changing a tool policy take
 * effect without a restart; a bad file is rejected with a log line and the
 * running configuration keeps serving; keys that need a restart are named.
 * A change made while the bridge starts (after the file was read, before the
 * watch's first look) is applied too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type BridgeConfig, type LoadedConfig } from '../../src/config/load.js';
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
    const loaded = loadConfig(argv, {}) as LoadedConfig;
    const bridge = await startBridge(loaded.config, log);
    const apply = (next: BridgeConfig) => bridge.applyConfig(next);
    const stop = watchConfigFile({ file, loadedMtimeMs: loaded.fileMtimeMs, argv, env: {}, apply, log, intervalMs: 50 });
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
  it('a change made after the file was read at start-up, before the watch began, is applied; an unchanged file is not reloaded', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bridge-reload-')), 'bridge.yaml');
    writeFileSync(file, 'port: 0\nlogLevel: info\n');
    const argv = ['--config', file];
    const log = createLogger('silent');
    const firstRead = loadConfig(argv, {}) as LoadedConfig;
    const loaded = loadConfig(argv, {}) as LoadedConfig;
    writeFileSync(file, 'port: 0\nlogLevel: debug\n');
    // Later than the read by a whole second, whatever the file system's time resolution.
    utimesSync(file, new Date(), new Date(loaded.fileMtimeMs! + 1000));
    const applied: BridgeConfig[] = [];
    const apply = async (next: BridgeConfig) => (applied.push(next), []);
    // A poll interval far beyond the test: only the first look against the start-up time can see the change.
    const stop = watchConfigFile({ file, loadedMtimeMs: loaded.fileMtimeMs, argv, env: {}, apply, log, intervalMs: 600_000 });
    try {
      await until(async () => applied.length === 1);
      assert.equal(applied[0]!.logLevel, 'debug');
    } finally {
      stop();
    }
    const reread = loadConfig(argv, {}) as LoadedConfig;
    const none: BridgeConfig[] = [];
    const stopUnchanged = watchConfigFile({
      file,
      loadedMtimeMs: reread.fileMtimeMs,
      argv,
      env: {},
      apply: async (next) => (none.push(next), []),
      log,
      intervalMs: 600_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    stopUnchanged();
    assert.equal(none.length, 0, 'the file as read at start-up is not reloaded');
    assert.ok(firstRead.fileMtimeMs! < reread.fileMtimeMs!, 'the time read follows the file');
  });
});
