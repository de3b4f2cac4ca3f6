/**
 * Empty states that say why and what to do, in a real headless Chromium:
 * the bridge (and the oxp-server) with its only upstream down. Tools and
 * Try a tool say no upstream has listed its tools, name it and its error,
 * and point at the Upstreams view; Calls says how calls get there, and a
 * `catalog_unavailable` call counts as an upstream error and is explained.
 * Screenshots go to test/artifacts/console-empty-*.png.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { exchange, request } from '../helpers/it-http.js';
import { startTestOxpServer, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { browserMissing, launchBrowser, openPage, screenshot } from './browser.js';

const TOKEN = 'console-empty-token-0123456789';
const KEY = 'console-empty-key-0123456789';
const skip = browserMissing();

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function signIn(page: Page, base: string, token: string, errors: string[]): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.evaluate('sessionStorage.clear()');
  await page.reload();
  await page.waitForSelector('#login:not([hidden])');
  await page.type('#token', token);
  await page.click('#login-form button');
  await page.waitForSelector('#main:not([hidden])');
  errors.length = 0; // the refused first API request
}

/** The visible text of `selector`, '' when it is absent or hidden. */
function visibleText(page: Page, selector: string): Promise<string> {
  return page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    return el && el.checkVisibility() ? el.innerText : '';
  })()`) as Promise<string>;
}

describe('console empty states, with the upstream down', { skip, timeout: 120_000 }, () => {
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
    let bridge: RunningBridge;
    let base: string;
    let oxpUrl: string;

    before(async () => {
      oxpUrl = `http://127.0.0.1:${await closedPort()}`;
      bridge = await startBridge(testConfig(['--oxp-url', oxpUrl], { MCP_AUTH_TOKENS: TOKEN }), createLogger('silent'));
      base = bridge.mcpUrl!.replace(/\/mcp$/, '');
      await signIn(page, base, TOKEN, errors);
    });
    after(async () => {
      await bridge?.close();
    });

    it('Tools: says no upstream has listed its tools, names it with its error, and points at Upstreams', async () => {
      await page.goto(`${base}/console/#tools`);
      await page.waitForFunction("document.getElementById('tool-count').textContent !== ''");
      const empty = await visibleText(page, '#tool-empty');
      assert.match(empty, /no upstream/i, empty);
      assert.match(empty, /default/, 'names the upstream');
      assert.match(empty, /ECONNREFUSED|refused|reach/i, 'says what went wrong');
      assert.match(empty, /Upstreams/, 'says where to look');
      assert.ok(await page.$('#tool-empty a[href="#upstreams"]'), 'a link to the Upstreams view');
      assert.notEqual(await page.$eval('#tool-count', (e) => e.textContent), '(0)', 'not a bare count');
      await screenshot(page, 'console-empty-tools');

      // A search that matches nothing says so, and how to get the list back.
      await page.type('#tool-search', 'zzz');
      await page.waitForFunction("document.getElementById('tool-empty').innerText.includes('zzz')");
    });

    it('Try a tool: no empty select, the same reason instead', async () => {
      await page.goto(`${base}/console/#try`);
      await page.waitForFunction("document.getElementById('try-empty').innerText !== ''");
      const empty = await visibleText(page, '#try-empty');
      assert.match(empty, /no upstream/i, empty);
      assert.match(empty, /default/);
      assert.equal(await visibleText(page, '#try-tool'), '', 'the empty select is not shown');
      assert.equal(await page.$eval('#try-form', (f) => (f as unknown as { checkVisibility(): boolean }).checkVisibility()), false, 'nor an empty form');
      await screenshot(page, 'console-empty-try');
    });

    it('Calls: says how calls get there; a catalog_unavailable call is an upstream error, explained', async () => {
      await page.goto(`${base}/console/#calls`);
      await page.waitForFunction("document.getElementById('calls-empty').innerText !== ''");
      assert.match(await visibleText(page, '#calls-empty'), /no calls/i);
      assert.match(await visibleText(page, '#calls-empty'), /Try a tool/);

      const r = await exchange(bridge.mcpUrl!, {
        headers: { ...modernHeaders('tools/call', 'Math_Double'), authorization: `Bearer ${TOKEN}` },
        body: request('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: MODERN_META }),
      });
      assert.ok(
        r.messages.some((m) => 'error' in m),
        'the call fails: no catalog',
      );
      await page.waitForSelector('#tool-stats tr[data-tool="Math_Double"]', { timeout: 15_000 });
      const row = await page.$eval('#tool-stats tr[data-tool="Math_Double"]', (tr) => [...tr.children].map((td) => td.textContent));
      assert.equal(row[3], '100.0 %', 'the call reached no upstream: an upstream error');
      assert.match(row[6], /catalog_unavailable 1/);
      assert.equal(await visibleText(page, '#calls-empty'), '', 'no longer empty');
      const help = await visibleText(page, '#outcome-help');
      assert.match(help, /catalog_unavailable/);
      assert.match(help, /Upstreams/, 'says where to look');
      await screenshot(page, 'console-empty-calls');
      assert.deepEqual(errors, []);
    });
  });

  describe('oxp-server', () => {
    let server: TestOxpServer;

    before(async () => {
      server = await startTestOxpServer(['--mcp-url', `Fx=http://127.0.0.1:${await closedPort()}/mcp`, '--api-key', KEY], {}, undefined, { noWait: true });
      await server.upstreams.settled();
      await signIn(page, server.url, KEY, errors);
    });
    after(async () => {
      await server?.close();
    });

    it('Tools and Try a tool: the MCP server has not connected, named with its error', async () => {
      await page.goto(`${server.url}/console/#tools`);
      await page.waitForFunction("document.getElementById('tool-count').textContent !== ''");
      const empty = await visibleText(page, '#tool-empty');
      assert.match(empty, /no upstream/i, empty);
      assert.match(empty, /Fx/);
      assert.match(empty, /Upstreams/);
      await page.goto(`${server.url}/console/#try`);
      await page.waitForFunction("document.getElementById('try-empty').innerText !== ''");
      assert.match(await visibleText(page, '#try-empty'), /Fx/);
      assert.deepEqual(errors, []);
    });
  });
});
