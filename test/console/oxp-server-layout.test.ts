/**
 * How the oxp-server console reads at 760, 1280 and 1920 px, in a real
 * headless Chromium, in front of a real MCP server (the HTTP fixture) with a
 * tool named as long as real servers name theirs: every view scrolls nothing
 * sideways, shows each column of its tables (the per-tool table's "Outcomes
 * since start" too), breaks no word, and keeps its JSON inside its boxes
 * (layout-measure.ts). Screenshots go to test/artifacts/console-oxp-layout-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { fixtureTools, startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { startTestOxpServer, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { browserMissing, launchBrowser, openPage, screenshot } from './browser.js';
import { assertBlocksUsable, assertReadable, measureView, WIDTHS } from './layout-measure.js';

const KEY = 'oxp-layout-key-0123456789';
const skip = browserMissing();
/** As long as real servers name theirs (server-everything's are of this kind). */
const LONG_TOOL = 'trigger_long_running_operation_with_progress';

describe('console layout (oxp-server) in a real browser', { skip, timeout: 180_000 }, () => {
  let fixture: McpHttpFixture;
  let server: TestOxpServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let longId: string;

  before(async () => {
    fixture = await startMcpHttpFixture({
      tools: [
        ...fixtureTools(),
        {
          name: LONG_TOOL,
          description: 'Runs a long operation and reports its progress while it runs.',
          inputSchema: { type: 'object', properties: { steps: { type: 'integer', description: 'How many steps to run.' } } },
          run: () => ({ result: { content: [{ type: 'text', text: 'done' }] } }),
        },
      ],
    });
    server = await startTestOxpServer(['--mcp-url', `Everything=${fixture.url}`, '--api-key', KEY]);
    const listed = (await (await fetch(`${server.url}/tools`, { headers: { 'oxp-api-key': KEY } })).json()) as { items: { id: string }[] };
    longId = listed.items.find((t) => t.id.includes(LONG_TOOL))!.id;
    const add = listed.items.find((t) => t.id.startsWith('Everything.add@'))!.id;
    // Several outcomes per tool: the per-tool table's last column has several entries.
    for (const [tool, input] of [
      [longId, { steps: 3 }],
      [longId, { steps: 'three' }],
      [add, { a: 1, b: 2 }],
      [add, { a: 'one' }],
    ] as const)
      await fetch(`${server.url}/tools/call`, {
        method: 'POST',
        headers: { 'oxp-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: tool, input } }),
      });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
    await page.goto(`${server.url}/console/`);
    await page.waitForSelector('#login:not([hidden])');
    await page.type('#token', KEY);
    await page.click('#login-form button');
    await page.waitForSelector('#main:not([hidden])');
    errors.length = 0; // the refused first API request
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
  });

  for (const width of WIDTHS)
    it(`every view at ${width} px: nothing scrolls sideways, every column visible, no word broken`, async () => {
      await page.setViewport({ width, height: 900 });
      try {
        await page.goto(`${server.url}/console/#upstreams`);
        await page.waitForSelector('#upstream-list article');
        assertReadable(await measureView(page), `Upstreams at ${width}`);

        await page.goto(`${server.url}/console/#tools/${encodeURIComponent(longId)}`);
        await page.waitForSelector('#tool-detail .col');
        const tools = await measureView(page);
        assertReadable(tools, `Tools at ${width}`);
        for (const w of tools.jsonColumns)
          assert.ok(w >= 260, `Tools at ${width}: each column is readable (${tools.jsonColumns.map(Math.round).join(', ')} px)`);
        await screenshot(page, `console-oxp-layout-tools-${width}`);

        await page.goto(`${server.url}/console/#calls`);
        await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length >= 4");
        const calls = await measureView(page);
        assertReadable(calls, `Calls at ${width}`);
        const stats = calls.tables.find((t) => t.id === 'tool-stats')!;
        assert.deepEqual(
          stats.columns.map((c) => c.header),
          ['Tool', 'Calls/s', 'Calls', 'Upstream errors', 'p50', 'p99', 'Outcomes since start'],
        );
        if (width < 1280) await assertBlocksUsable(page);
        await screenshot(page, `console-oxp-layout-calls-${width}`);

        await page.goto('about:blank'); // a fresh page: no form or answer left from the width before
        await page.goto(`${server.url}/console/#try/${encodeURIComponent(longId)}`);
        await page.waitForSelector('#arg-steps');
        await page.type('#arg-steps', '2');
        await page.click('#try-form button[type=submit]');
        await page.waitForSelector('#try-result .col');
        assertReadable(await measureView(page), `Try a tool at ${width}`);
        await screenshot(page, `console-oxp-layout-try-${width}`);
        assert.deepEqual(errors, []);
      } finally {
        await page.setViewport({ width: 1000, height: 760 });
      }
    });
});
