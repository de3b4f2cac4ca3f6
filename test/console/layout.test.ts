/**
 * How the bridge console reads, in a real headless Chromium: the Upstreams
 * chart leaves a gap where a slot had no call, the Calls view is usable at
 * 760 px, and a tool's per-revision JSON wraps only between values (indented
 * under the line it continues) with what differs from the revision to its
 * left marked. Screenshots go to test/artifacts/console-layout-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startBridge, type RunningBridge } from '../../src/mcp-server/start.js';
import { createLogger } from '../../src/log.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { exchange, request } from '../helpers/it-http.js';
import { browserMissing, launchBrowser, openPage, screenshot } from './browser.js';

const TOKEN = 'console-layout-token-0123456789';
const skip = browserMissing();
/** The upstream window's slot (recorder.ts): 10 s. */
const SLOT_MS = 10_000;

/** A tool as real servers describe theirs: a long description with a link, nested schemas, an output schema. */
const searchTool: FixtureTool = {
  id: 'Search.Web',
  name: 'Search_Web',
  description:
    'Searches the web and returns the best matching pages with their titles and snippets; see https://search.example.com/docs/api/v2/query-syntax-and-operators for the query syntax it understands.',
  version: '1.0.0',
  input_schema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to search for, in the query syntax described above (quotes, site:, minus).' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'How many pages to return at most.' },
      region: { type: 'string', enum: ['world', 'europe', 'north-america'], description: 'Where the results should come from.' },
    },
    required: ['query'],
  },
  output_schema: { type: 'object', properties: { hits: { type: 'array', items: { type: 'string' } } }, required: ['hits'] },
  handler: (req) => ({ value: { hits: [`result for ${String(req.input?.['query'])}`] } }),
};

describe('console layout (bridge) in a real browser', { skip, timeout: 120_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let base: string;

  before(async () => {
    fixture = await startOxpFixture({ tools: [...integrationTools(), searchTool] });
    bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN }), createLogger('silent'));
    base = bridge.mcpUrl!.replace(/\/mcp$/, '');
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
    await page.goto(`${base}/console/`);
    await page.waitForSelector('#login:not([hidden])');
    await page.type('#token', TOKEN);
    await page.click('#login-form button');
    await page.waitForSelector('#main:not([hidden])');
    errors.length = 0; // the refused first API request
  });
  after(async () => {
    await browser?.close();
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

  it('Upstreams: the p50 and p99 lines stop at a slot without calls (a gap is a gap)', async () => {
    await call('Math_Double', { x: 1 });
    const first = Math.floor(Date.now() / SLOT_MS);
    // The next slot passes without a call; the one after gets one.
    await new Promise((r) => setTimeout(r, (first + 2) * SLOT_MS - Date.now() + 50));
    await call('Math_Double', { x: 2 });
    await call('Math_Double', { x: 3 });
    await page.goto(`${base}/console/#upstreams`);
    await page.waitForFunction("document.querySelector('#upstream-list article')?.textContent?.includes('3 calls')", { timeout: 15_000 });
    const chart = await page.$eval('#upstream-list svg.chart', (svg) => ({
      barWidths: [...svg.querySelectorAll('rect.calls')].map((r) => Number(r.getAttribute('width'))),
      dots: [...svg.querySelectorAll('circle.p50')].map((c) => Number(c.getAttribute('cx'))),
      lines: [...svg.querySelectorAll('polyline')].map((p) =>
        (p.getAttribute('points') ?? '')
          .trim()
          .split(/\s+/)
          .map((xy: string) => Number(xy.split(',')[0])),
      ),
    }));
    // A bar spans its slot but 2 units (console.js): the slot step, whatever the chart's size.
    const step = chart.barWidths[0]! + 2;
    assert.equal(chart.dots.length, 2, `two slots with calls: ${JSON.stringify(chart)}`);
    assert.ok(Math.abs(chart.dots[1]! - chart.dots[0]! - 2 * step) < 0.5, 'one slot without calls between them');
    for (const xs of chart.lines)
      for (let i = 1; i < xs.length; i++) assert.ok(Math.abs(xs[i]! - xs[i - 1]! - step) < 0.5, `a line joins neighbouring slots only: ${xs.join(' ')}`);
    await screenshot(page, 'console-layout-upstreams');
  });
});
