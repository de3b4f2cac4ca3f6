/**
 * The bridge on its embedded demo toolkit (no OXP URL), in a real headless
 * Chromium: the upstream is named `demo` and labelled as the demo toolkit
 * (the console, /readyz), and an anonymous caller's calls read "anonymous"
 * whole at 760, 1280 and 1920 px. Screenshots go to
 * test/artifacts/console-layout-demo-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { exchange, request } from '../helpers/it-http.js';
import { browserMissing, launchBrowser, openPage, screenshot, texts } from './browser.js';
import { assertReadable, measureView, WIDTHS } from './layout-measure.js';

const skip = browserMissing();

describe('console (bridge on the embedded demo toolkit) in a real browser', { skip, timeout: 120_000 }, () => {
  let demo: RunningBridge;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    demo = await startBridge(testConfig([]), createLogger('silent'));
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('the embedded demo toolkit is named as such: upstream demo, labelled, in /readyz, the Upstreams view and the tool list', async () => {
    const base = demo.mcpUrl!.replace(/\/mcp$/, '');
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { upstreams: Record<string, { label?: string }> };
    assert.deepEqual(Object.keys(ready.upstreams), ['demo']);
    assert.equal(ready.upstreams['demo']!.label, 'embedded demo toolkit', '/readyz says what it is');
    await page.goto(`${base}/console/#upstreams`);
    await page.waitForSelector('#upstream-list article[data-name="demo"]');
    assert.match((await texts(page, '#upstream-list article h3'))[0]!, /^demo\s*embedded demo toolkit/);
    await screenshot(page, 'console-layout-demo-upstreams');
    await page.goto(`${base}/console/#tools`);
    await page.waitForSelector('#tool-list li');
    for (const from of await texts(page, '#tool-list li small')) assert.match(from, /^demo · /);
    assert.deepEqual(errors, []);
  });

  it('an anonymous caller reads "anonymous", whole, in the Calls view at 760, 1280 and 1920 px', async () => {
    for (const [tool, args] of [
      ['Calculator_Add', { a: 1, b: 2 }],
      ['Text_Echo', { text: 'hi' }],
      ['Calculator_Divide', { a: 1, b: 0 }],
    ] as const) {
      const r = await exchange(demo.mcpUrl!, {
        headers: modernHeaders('tools/call', tool),
        body: request('tools/call', { name: tool, arguments: args, _meta: MODERN_META }),
      });
      assert.ok(r.messages.some((m) => 'result' in m));
    }
    const base = demo.mcpUrl!.replace(/\/mcp$/, '');
    for (const width of WIDTHS) {
      await page.setViewport({ width, height: 900 });
      await page.goto(`${base}/console/#calls`);
      await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length >= 3");
      assertReadable(await measureView(page), `demo Calls at ${width}`);
      assert.deepEqual(new Set(await texts(page, '#recent-calls td.principal')), new Set(['anonymous']));
      await screenshot(page, `console-layout-demo-calls-${width}`);
    }
    assert.deepEqual(errors, []);
  });
});
