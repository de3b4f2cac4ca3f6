/**
 * The operator console of `oxp-server`, in a real headless Chromium, in
 * front of a real MCP server (the HTTP fixture), with an API key: refusal
 * without it, the MCP server's state, the OXP definition beside the MCP
 * tool it came from, "try a tool" (a real POST /tools/call from the page),
 * and the call listed with its shape only. Screenshots go to
 * test/artifacts/console-oxp-*.png.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { startTestOxpServer, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { browserMissing, launchBrowser, screenshot, texts, openPage } from './browser.js';

const KEY = 'oxp-console-key-0123456789';
/** A plain API key's principal: named by its digest (config/value-source.ts). */
const KEY_PRINCIPAL = `key:${createHash('sha256').update(KEY).digest('hex').slice(0, 12)}`;
const skip = browserMissing();

describe('console (oxp-server) in a real browser', { skip, timeout: 120_000 }, () => {
  let fixture: McpHttpFixture;
  let server: TestOxpServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    fixture = await startMcpHttpFixture();
    server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`, '--api-key', KEY]);
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
  });

  it('refuses the API without the OXP credentials, and opens with them', async () => {
    assert.equal((await fetch(`${server.url}/console/api/overview`)).status, 401);
    const overview = await fetch(`${server.url}/console/api/overview`, { headers: { 'oxp-api-key': KEY } });
    assert.equal(overview.status, 200);
    assert.deepEqual(
      ((await overview.json()) as { caller: unknown }).caller,
      { name: KEY_PRINCIPAL, kind: 'api-key', groups: [], scopes: [] },
      'who is asking',
    );
    assert.equal((await fetch(`${server.url}/console/api/overview`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
    assert.equal(
      (await fetch(`${server.url}/console/api/overview`, { headers: { authorization: `Bearer ${KEY}`, origin: 'http://evil.example' } })).status,
      403,
    );
    assert.equal((await fetch(`${server.url}/health`)).status, 200, 'the OXP face is unchanged behind the console');

    await page.goto(`${server.url}/console/`);
    await page.waitForSelector('#login:not([hidden])');
    errors.length = 0; // the refused first API request
    await page.type('#token', KEY);
    await page.click('#login-form button');
    await page.waitForSelector('#upstream-list article[data-name="Fx"]');
    const card = (await texts(page, '#upstream-list article'))[0]!;
    assert.match(card, /connected/);
    assert.match(card, /Transport/);
    await screenshot(page, 'console-oxp-upstreams');
  });

  it('Tools: the OXP definition beside the MCP tool it came from', async () => {
    await page.goto(`${server.url}/console/#tools`);
    await page.waitForSelector('#tool-list li');
    await page.type('#tool-search', 'Adds two');
    await page.waitForFunction("document.querySelectorAll('#tool-list li').length === 1");
    await page.click('#tool-list li');
    await page.waitForSelector('#tool-detail .col');
    const cols = await page.$$eval('#tool-detail .col', (cs) => cs.map((c) => JSON.parse(c.querySelector('pre')!.textContent) as Record<string, unknown>));
    assert.equal(cols.length, 2);
    const [oxp, mcp] = cols as [Record<string, unknown>, Record<string, unknown>];
    const listed = (
      (await (await fetch(`${server.url}/tools`, { headers: { 'oxp-api-key': KEY } })).json()) as { items: Record<string, unknown>[] }
    ).items.find((t) => t.id === oxp.id);
    assert.deepEqual(oxp, listed, 'the definition GET /tools lists');
    assert.equal(mcp.name, 'add');
    await screenshot(page, 'console-oxp-tools');
  });

  it('Try a tool, then Calls lists it (shape only)', async () => {
    const id = (await page.$eval('#tool-list li', (li) => (li as unknown as { dataset: Record<string, string> }).dataset.name))!;
    await page.goto(`${server.url}/console/#try/${encodeURIComponent(id)}`);
    await page.waitForSelector('#arg-a');
    await page.type('#arg-a', '2');
    await page.type('#arg-b', '40');
    await page.click('#try-form button[type=submit]');
    await page.waitForSelector('#try-result .col');
    const answer = JSON.parse((await texts(page, '#try-result pre'))[0]!) as { result: { success: boolean; value: unknown; call_id: string } };
    assert.equal(answer.result.success, true);
    assert.deepEqual(answer.result.value, { sum: 42 });
    await screenshot(page, 'console-oxp-try');

    await page.goto(`${server.url}/console/#calls`);
    await page.waitForSelector('#recent-calls tbody tr');
    const row = await page.$eval('#recent-calls tbody tr', (tr) => [...tr.children].map((td) => td.textContent ?? ''));
    assert.equal(row[1], id);
    // The principal, once the OXP face's record names it (an optional field of onCall); '–' until then.
    assert.ok(['–', KEY_PRINCIPAL].includes(row[2]), row[2]);
    assert.equal(row[3], 'oxp-1.0');
    assert.equal(row[4], 'success');
    assert.equal(row[6], answer.result.call_id);
    assert.equal(row[8], '{"a":"number","b":"number"}');
    assert.equal(row[9], '{"value":"object"}');
    assert.deepEqual(errors, [], 'no console errors once signed in');
  });
});
