/**
 * The operator console of the MCP bridge, in a real headless Chromium,
 * against a bridge (bearer auth) over a real OXP fixture upstream:
 * refusal without a token, every view's content, the per-revision JSON
 * compared with what the bridge really sends each revision, "try a tool"
 * (a real /mcp call from the page), live updates after calls made
 * elsewhere, redaction, and no console error once signed in. Screenshots go
 * to test/artifacts/console-*.png.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { MCP_REVISIONS, newestRevision, profileFor, type McpRevision } from '../../src/core/mcp-versions.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { exchange, initializeRequest, request } from '../helpers/it-http.js';
import { browserMissing, launchBrowser, paintTimings, rawGet, screenshot, texts, openPage } from './browser.js';

const TOKEN = 'console-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const skip = browserMissing();

describe('console (bridge) in a real browser', { skip, timeout: 120_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let base: string;
  let mcpUrl: string;

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN }), createLogger('silent'));
    mcpUrl = bridge.mcpUrl!;
    base = mcpUrl.replace(/\/mcp$/, '');
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
  });

  after(async () => {
    await browser?.close();
    await bridge?.close();
    await fixture?.close();
  });

  it('serves the page with a strict CSP, and its API only with the token', async () => {
    const pageRes = await fetch(`${base}/console/`);
    assert.equal(pageRes.status, 200);
    const csp = pageRes.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline scripts');
    assert.match(csp, /style-src 'self'(;|$)/, 'no inline styles');
    assert.equal(pageRes.headers.get('set-cookie'), null);
    const html = await pageRes.text();
    assert.doesNotMatch(html, /<script>|style=|https?:\/\//, 'no inline script or style, nothing fetched from elsewhere');
    assert.equal((await fetch(`${base}/console/api/overview`)).status, 401);
    assert.equal((await fetch(`${base}/console/api/overview`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
    assert.equal((await fetch(`${base}/console/api/overview`, { headers: AUTH })).status, 200);
    assert.equal(await rawGet(`${base}/console/api/overview`, { ...AUTH, host: 'evil.example' }), 403, 'Host rule as /mcp');
    assert.equal(await rawGet(`${base}/console/`, { host: 'evil.example' }), 403, 'Host rule on the page too');
    assert.equal(await rawGet(`${base}/console/api/overview`, { ...AUTH, origin: 'http://evil.example' }), 403, 'Origin rule as /mcp');
  });

  it('asks for a token, refuses a wrong one, and opens on the Upstreams view with the right one (first paint measured)', async (t) => {
    await page.goto(`${base}/console`, { waitUntil: 'load' });
    assert.equal(new URL(page.url()).pathname, '/console/');
    await page.waitForSelector('#login:not([hidden])');
    const timings = await paintTimings(page);
    t.diagnostic(`console first paint: ${JSON.stringify(timings)}`);
    assert.ok(timings.firstContentfulPaint > 0 && timings.firstContentfulPaint < 2_000, `first contentful paint ${timings.firstContentfulPaint} ms`);
    assert.equal(await page.$eval('#main', (e) => (e as unknown as { hidden: boolean }).hidden), true, 'no data without a token');

    await page.type('#token', 'not-the-token-0123456789');
    await page.click('#login-form button');
    await page.waitForFunction("document.getElementById('login-error').textContent.includes('refused')");
    assert.ok(
      errors.every((e) => /401/.test(e)),
      `only the refused API requests were errors: ${errors.join('\n')}`,
    );
    errors.length = 0;

    await page.type('#token', TOKEN);
    await page.click('#login-form button');
    await page.waitForSelector('#upstream-list article[data-name="default"]');
    const card = (await texts(page, '#upstream-list article[data-name="default"]'))[0]!;
    assert.match(card, /ready/);
    assert.match(card, /circuit closed/);
    assert.match(card, new RegExp(`Tools${integrationTools().filter((t, i, all) => all.findIndex((u) => u.id === t.id) === i).length}`));
    assert.ok(card.includes(fixture.url.replace(/\/$/, '')), 'the upstream URL');
    assert.equal(await page.$$eval('#upstream-list svg.chart', (e) => e.length), 1, 'a latency chart');
    assert.equal(await page.evaluate('document.cookie'), '', 'no cookie');
  });

  it('Tools: search, and for a tool the exact tools/list JSON each revision receives from the bridge', async () => {
    await page.goto(`${base}/console/#tools`);
    await page.waitForSelector('#tool-list li');
    await page.type('#tool-search', 'double');
    await page.waitForFunction("document.querySelectorAll('#tool-list li').length === 1");
    assert.deepEqual(await page.$$eval('#tool-list li', (e) => e.map((li) => (li as unknown as { dataset: Record<string, string> }).dataset.name)), [
      'Math_Double',
    ]);
    await page.click('#tool-list li');
    await page.waitForSelector('#tool-detail .col[data-revision="2026-07-28"]');
    const shown = await columnsJson(page, '#tool-detail');
    assert.deepEqual(Object.keys(shown), [...MCP_REVISIONS]);
    for (const version of MCP_REVISIONS) {
      const answer = await listToolsAs(version);
      const tool = (answer.tools as { name: string }[]).find((t) => t.name === 'Math_Double');
      assert.deepEqual(shown[version], { ...answer, tools: [tool] }, `${version}: the console shows what the bridge sends`);
    }
    assert.equal((shown['2024-11-05'] as { tools: Record<string, unknown>[] }).tools[0]!.outputSchema, undefined);
    assert.deepEqual((shown['2025-06-18'] as { tools: Record<string, unknown>[] }).tools[0]!.outputSchema, {
      type: 'object',
      properties: { result: { type: 'number' } },
      required: ['result'],
    });
    await screenshot(page, 'console-tools');
  });

  let traceId = '';
  it('Try a tool: a form from the input schema, a real /mcp call, the result as each revision receives it', async () => {
    await page.goto(`${base}/console/#try/Math_Double`);
    await page.waitForSelector('#arg-x');
    await page.type('#arg-x', '21');
    await page.click('#try-form button[type=submit]');
    await page.waitForSelector('#try-result .col[data-revision="2024-11-05"]');
    const shown = await columnsJson(page, '#try-result');
    assert.deepEqual(Object.keys(shown), [...MCP_REVISIONS]);
    assert.equal((shown['2026-07-28'] as Record<string, unknown>).structuredContent, 42);
    assert.deepEqual((shown['2025-06-18'] as Record<string, unknown>).structuredContent, { result: 42 });
    assert.equal((shown['2024-11-05'] as Record<string, unknown>).structuredContent, undefined);
    // The same call from a real 2025-06-18 client gets exactly the 2025-06-18 column.
    assert.deepEqual(await callToolAs('2025-06-18', 'Math_Double', { x: 21 }), shown['2025-06-18']);
    traceId = /trace id ([0-9a-f]{32})/.exec((await texts(page, '#try-result p'))[0]!)![1]!;
    await screenshot(page, 'console-try');
  });

  it('Calls: the page call with its trace id, then calls made elsewhere appear live; values redacted', async () => {
    await page.goto(`${base}/console/#calls`);
    await page.waitForSelector('#recent-calls tbody tr');
    const first = await rowTexts(page);
    const mine = first.find((r) => r[1] === 'Math_Double' && r[3] === newestRevision());
    assert.ok(mine, `the page's call is listed: ${JSON.stringify(first)}`);
    assert.equal(mine[2], `token:${createHash('sha256').update(TOKEN).digest('hex').slice(0, 12)}`, 'a plain token: named by its hash');
    assert.equal(mine[4], 'success');
    assert.match(mine[6]!, /^[0-9a-f-]{36}$/, 'call_id');
    assert.equal(mine[7], traceId, 'trace id from the traceparent the page sent');
    assert.equal(mine[8], '{"x":"number"}', 'arguments as a shape, not values');

    // Calls from an MCP client elsewhere: the page shows them without a reload.
    const ring = await callToolAs('2025-03-26', 'Doorbell_Ring', { doorbell_id: 'doorbell1' });
    assert.equal((ring as { isError?: boolean }).isError, true);
    await callToolAs(newestRevision(), 'Math_Double', { x: 1 });
    // Math_Double: the page's call, the 2025-06-18 comparison call, and this one.
    await page.waitForFunction(
      "[...document.querySelectorAll('#recent-calls tbody tr')].some((tr) => tr.textContent.includes('Doorbell_Ring')) && document.querySelector('#tool-stats tr[data-tool=\"Math_Double\"] td:nth-child(3)')?.textContent === '3'",
      { timeout: 15_000 },
    );
    const rows = await rowTexts(page);
    const doorbell = rows.find((r) => r[1] === 'Doorbell_Ring')!;
    assert.equal(doorbell[3], '2025-03-26');
    assert.equal(doorbell[4], 'tool_error');
    const html = await page.content();
    assert.ok(!html.includes('doorbell1'), 'argument values are not shown');
    assert.ok(!html.includes('does not exist'), 'developer_message is never shown');
    const stats = await page.$$eval('#tool-stats tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const double = stats.find((r) => r[0] === 'Math_Double')!;
    assert.equal(double[2], '3', 'three Math_Double calls in the window');
    assert.match(double[6], /success 3/);
    await screenshot(page, 'console-calls');
  });

  it('Upstreams: the chart and figures follow the calls', async () => {
    await page.goto(`${base}/console/#upstreams`);
    await page.waitForFunction("document.querySelector('#upstream-list article')?.textContent?.includes('4 calls')", { timeout: 15_000 });
    // A line joins neighbouring slots with calls; a lone slot is its dot (layout.test.ts: a gap is a gap).
    assert.ok((await page.$$('#upstream-list svg.chart circle.p50')).length >= 1, 'p50 points');
    assert.ok((await page.$$('#upstream-list svg.chart rect.calls')).length >= 1, 'call bars');
    await screenshot(page, 'console-upstreams');
    assert.deepEqual(errors, [], 'no console errors once signed in');
  });

  /** Each `.col` of a container: its heading's first text → its JSON. */
  function columnsJson(p: Page, container: string): Promise<Record<string, unknown>> {
    return p.$$eval(`${container} .col`, (cols) =>
      Object.fromEntries(
        cols.map((c) => [(c as unknown as { dataset: Record<string, string> }).dataset.revision!, JSON.parse(c.querySelector('pre')!.textContent)]),
      ),
    );
  }

  function rowTexts(p: Page): Promise<string[][]> {
    return p.$$eval('#recent-calls tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
  }

  /** What a client of `version` really receives for tools/list (a session for the legacy revisions). */
  async function listToolsAs(revision: McpRevision): Promise<Record<string, unknown>> {
    return (await rpcAs(revision, 'tools/list', {})) as Record<string, unknown>;
  }

  async function callToolAs(revision: McpRevision, name: string, args: Record<string, unknown>): Promise<unknown> {
    return rpcAs(revision, 'tools/call', { name, arguments: args });
  }

  async function rpcAs(revision: McpRevision, method: string, params: Record<string, unknown>): Promise<unknown> {
    if (profileFor(revision).era === 'modern') {
      const r = await exchange(mcpUrl, {
        headers: { ...modernHeaders(method, params.name as string | undefined), ...AUTH },
        body: request(method, { ...params, _meta: MODERN_META }),
      });
      return r.messages.find((m) => 'result' in m)!.result;
    }
    const init = await exchange(mcpUrl, { headers: AUTH, body: initializeRequest(revision) });
    const session = init.headers.get('mcp-session-id')!;
    assert.ok(session, `a ${revision} session`);
    await exchange(mcpUrl, { headers: { ...AUTH, 'mcp-session-id': session }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const r = await exchange(mcpUrl, { headers: { ...AUTH, 'mcp-session-id': session }, body: request(method, params) });
    return r.messages.find((m) => 'result' in m)!.result;
  }
});

describe('console (bridge) turned off', () => {
  it('console.enabled false: /console is not served', async () => {
    const fixture = await startOxpFixture({ tools: integrationTools() });
    const bridge = await startBridge(testConfig(['--oxp-url', fixture.url, '--console', 'false']), createLogger('silent'));
    try {
      const base = bridge.mcpUrl!.replace(/\/mcp$/, '');
      assert.equal((await fetch(`${base}/console/`)).status, 404);
      assert.equal((await fetch(`${base}/console/api/overview`)).status, 404);
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});
