/**
 * One clock for a call's duration: the console shows, for each call_id, the
 * duration its log line says (the bridge's `tool call` line; the oxp-server's
 * `OXP call` line's, and the `duration` of its OXP answer), and a tool called
 * once has that very duration as its p50 and p99. In a real headless
 * Chromium, against a real bridge (and a real oxp-server) whose logs are read
 * as written.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { exchange, request } from '../helpers/it-http.js';
import { startTestOxpServer, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { browserMissing, launchBrowser, openPage } from './browser.js';

const TOKEN = 'console-durations-token-0123456789';
const KEY = 'console-durations-key-0123456789';
const skip = browserMissing();

/** A tool that takes a few milliseconds, as the 6.49 ms call did. */
const slowTool: FixtureTool = {
  id: 'Slow.Wait',
  name: 'Slow_Wait',
  description: 'Waits a little.',
  version: '1.0.0',
  input_schema: { type: 'object', properties: {} },
  handler: async () => {
    await new Promise((r) => setTimeout(r, 6));
    return { value: { waited: true } };
  },
};

/** Log lines as written, parsed. */
function logSink(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write: (chunk, _enc, done) => {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

interface ShownCall {
  callId: string | null;
  tool: string;
  durationMs: number;
}

/** The Duration cell of each row of the Calls view, by call_id. */
function shownDurations(page: Page): Promise<Record<string, string>> {
  return page.$$eval('#recent-calls tbody tr', (trs) =>
    Object.fromEntries(trs.map((tr) => [(tr as unknown as { dataset: Record<string, string> }).dataset.callId!, tr.children[5]!.textContent ?? ''])),
  );
}

/** The p50 and p99 cells of the per-tool table, by tool. */
function shownPercentiles(page: Page): Promise<Record<string, [string, string]>> {
  return page.$$eval('#tool-stats tbody tr', (trs) =>
    Object.fromEntries(
      trs.map((tr) => [(tr as unknown as { dataset: Record<string, string> }).dataset.tool!, [tr.children[4]!.textContent, tr.children[5]!.textContent]]),
    ),
  ) as Promise<Record<string, [string, string]>>;
}

async function signIn(page: Page, base: string, token: string, errors: string[]): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.waitForSelector('#login:not([hidden])');
  await page.type('#token', token);
  await page.click('#login-form button');
  await page.waitForSelector('#main:not([hidden])');
  errors.length = 0; // the refused first API request
}

describe('console durations: one measurement with the log line', { skip, timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
  });
  after(async () => {
    await browser?.close();
  });

  describe('bridge', () => {
    let fixture: OxpFixtureServer;
    let bridge: RunningBridge;
    let base: string;
    const log = logSink();

    before(async () => {
      fixture = await startOxpFixture({ tools: [...integrationTools(), slowTool] });
      bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN }), createLogger('info', log.stream));
      base = bridge.mcpUrl!.replace(/\/mcp$/, '');
    });
    after(async () => {
      await bridge?.close();
      await fixture?.close();
    });

    async function call(name: string, args: Record<string, unknown>): Promise<void> {
      const r = await exchange(bridge.mcpUrl!, {
        headers: { ...modernHeaders('tools/call', name), authorization: `Bearer ${TOKEN}` },
        body: request('tools/call', { name, arguments: args, _meta: MODERN_META }),
      });
      assert.ok(r.messages.some((m) => 'result' in m));
    }

    it("each call's duration in the console is its log line's duration_ms, the first call included; a tool called once has it as p50 and p99", async () => {
      // The very first call (the bridge's first tools/call, whatever it waits for) and then more.
      await call('Math_Double', { x: 1 });
      for (let i = 0; i < 5; i++) await call('Math_Double', { x: i });
      await call('Slow_Wait', {});
      const lines = log.lines.filter((l) => l.msg === 'tool call');
      assert.equal(lines.length, 7, 'one log line per call');
      const logged = new Map(lines.map((l) => [l.call_id as string, l.duration_ms as number]));

      const api = (await (await fetch(`${base}/console/api/calls`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        recent: ShownCall[];
        tools: { tool: string; window: { p50: number; p99: number; count: number } }[];
      };
      assert.equal(api.recent.length, 7);
      for (const c of api.recent) assert.equal(c.durationMs, logged.get(c.callId!), `${c.tool} ${c.callId}: the console's duration is the log line's`);
      const slow = api.recent.find((c) => c.tool === 'Slow_Wait')!;
      const slowStats = api.tools.find((t) => t.tool === 'Slow_Wait')!.window;
      assert.equal(slowStats.count, 1);
      assert.equal(slowStats.p50, slow.durationMs, 'one call: p50 is its duration');
      assert.equal(slowStats.p99, slow.durationMs, 'one call: p99 is its duration');

      await signIn(page, base, TOKEN, errors);
      await page.goto(`${base}/console/#calls`);
      await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length === 7");
      const shown = await shownDurations(page);
      for (const [callId, ms] of logged) assert.equal(shown[callId], `${ms} ms`, `${callId}: the page shows the logged duration_ms`);
      const percentiles = await shownPercentiles(page);
      assert.deepEqual(percentiles.Slow_Wait, [`${slow.durationMs} ms`, `${slow.durationMs} ms`]);
      assert.deepEqual(errors, []);
    });
  });

  describe('oxp-server', () => {
    let fixture: McpHttpFixture;
    let server: TestOxpServer;
    const log = logSink();

    before(async () => {
      fixture = await startMcpHttpFixture();
      server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--api-key', KEY], {}, createLogger('debug', log.stream));
    });
    after(async () => {
      await server?.close();
      await fixture?.close();
    });

    it("each call's duration in the console is the one its OXP answer and its log line carry (to 0.1 ms)", async () => {
      const id = (
        (await (await fetch(`${server.url}/tools`, { headers: { 'oxp-api-key': KEY } })).json()) as { items: { id: string; name: string }[] }
      ).items.find((t) => t.name === 'add')!.id;
      const answered = new Map<string, number>();
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${server.url}/tools/call`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'oxp-api-key': KEY },
          body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: id, input: { a: i, b: 1 } } }),
        });
        const body = (await res.json()) as { result: { call_id: string; duration: number } };
        answered.set(body.result.call_id, body.result.duration);
      }
      const logged = new Map(log.lines.filter((l) => l.msg === 'OXP call').map((l) => [l.call_id as string, l.duration_ms as number]));
      const api = (await (await fetch(`${server.url}/console/api/calls`, { headers: { 'oxp-api-key': KEY } })).json()) as { recent: ShownCall[] };
      assert.equal(api.recent.length, 5);
      for (const c of api.recent) {
        assert.equal(logged.get(c.callId!), Math.round(answered.get(c.callId!)! * 10) / 10, 'the log line and the answer: one measurement');
        assert.equal(c.durationMs, Math.round(answered.get(c.callId!)! * 10) / 10, `${c.callId}: the console's duration is the answer's`);
      }

      await signIn(page, server.url, KEY, errors);
      await page.goto(`${server.url}/console/#calls`);
      await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length === 5");
      const shown = await shownDurations(page);
      for (const c of api.recent) assert.equal(shown[c.callId!], `${c.durationMs} ms`);
      assert.deepEqual(errors, []);
    });
  });
});
