/**
 * "Who may call what" in the bridge console, in a real headless Chromium:
 * the Tools view as one principal sees the catalog (a named token, someone
 * described on the spot) with the rule that hides each hidden tool, the
 * Calls view naming each call's principal, and names that come from outside
 * (an OAuth user's, from a real authorization server; a name typed in the
 * page) shown as text, never as markup. Screenshots go to
 * test/artifacts/console-principals-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import type { RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS } from '../helpers/bridge-harness.js';
import { startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { browserMissing, launchBrowser, openPage, screenshot, texts } from './browser.js';
import { ALICE, BOB, POLICY, startWithConfig } from '../helpers/principals.js';

const skip = browserMissing();
/** Markup that would run if a page ever parsed a name as HTML. */
const MARKUP = '<img src=x onerror="window.pwned=1">';

async function call(mcpUrl: string, token: string, name: string, args: Record<string, unknown>): Promise<void> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  await res.text();
}

/** Signs the page in with `token`; the page's requests before it (refused without a token) are not errors. */
async function signIn(page: Page, base: string, token: string, errors: string[]): Promise<void> {
  await page.goto(`${base}/console/`, { waitUntil: 'load' });
  await page.evaluate('sessionStorage.clear()');
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#login:not([hidden])');
  await page.type('#token', token);
  await page.click('#login-form button');
  await page.waitForSelector('#main:not([hidden])');
  assert.ok(
    errors.every((e) => /401/.test(e)),
    errors.join('\n'),
  );
  errors.length = 0;
}

/** The tool list's rows: name, and the access line when shown. */
function toolRows(page: Page): Promise<{ name: string; denied: boolean; why: string }[]> {
  return page.$$eval('#tool-list li', (lis) =>
    lis.map((li) => ({
      name: (li as unknown as { dataset: Record<string, string> }).dataset.name!,
      denied: li.classList.contains('denied'),
      why: li.querySelector('small.why')?.textContent ?? '',
    })),
  );
}

describe('console (bridge): principals in a real browser', { skip, timeout: 120_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let base: string;

  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    bridge = await startWithConfig(POLICY, fixture.url);
    base = bridge.mcpUrl!.replace(/\/mcp$/, '');
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser));
  });
  after(async () => {
    await browser?.close();
    await bridge?.close();
    await fixture?.close();
  });

  it('Tools as a named token: only what it may call; with hidden tools, the rule that hides each', async () => {
    await signIn(page, base, ALICE, errors);
    assert.equal((await texts(page, '#caller'))[0], 'as alice', 'the header names who signed in');
    await page.goto(`${base}/console/#tools`);
    await page.waitForSelector('#tool-as-bar:not([hidden]) option[value="token:bob"]');
    const everyone = (await toolRows(page)).map((r) => r.name);
    assert.ok(everyone.includes('Gmail_GetEmails') && everyone.includes('Doorbell_Ring'));

    await page.select('#tool-as', 'token:bob');
    await page.waitForFunction("document.getElementById('tool-count').textContent.startsWith('(as bob')");
    const bob = await toolRows(page);
    assert.deepEqual(
      bob.map((r) => r.name),
      everyone.filter((n) => n !== 'Doorbell_Ring' && n !== 'Gmail_GetEmails'),
    );
    assert.ok(bob.every((r) => !r.denied && r.why === 'visible: access.default'));
    assert.equal((await texts(page, '#tool-count'))[0], `(as bob: ${bob.length} visible, 2 hidden)`);

    await page.click('#tool-as-hidden');
    await page.waitForFunction("document.querySelectorAll('#tool-list li.denied').length === 2");
    const hidden = (await toolRows(page)).filter((r) => r.denied);
    assert.deepEqual(
      hidden.map((r) => [r.name, r.why]),
      [
        ['Doorbell_Ring', 'hidden: rule no-doorbell'],
        ['Gmail_GetEmails', 'hidden: rule no-mail'],
      ].sort((a, b) => everyone.indexOf(a[0]!) - everyone.indexOf(b[0]!)),
    );
    await screenshot(page, 'console-principals-tools');
  });

  it('Tools as someone described on the spot: an OAuth user by name and groups; the typed name shown as text', async () => {
    await page.select('#tool-as', 'custom');
    await page.waitForSelector('#tool-as-custom:not([hidden])');
    await page.type('#tool-as-name', MARKUP);
    await page.waitForFunction("document.getElementById('tool-count').textContent.includes('onerror')");
    const calculators = (await toolRows(page)).filter((r) => r.name.startsWith('Calculator_'));
    assert.ok(calculators.length > 0 && calculators.every((r) => r.denied && r.why === 'hidden: rule access.rules[3]'), JSON.stringify(calculators));
    await page.type('#tool-as-groups', 'eng');
    await page.waitForFunction("document.querySelectorAll('#tool-list li.denied').length === 0");
    assert.ok((await toolRows(page)).every((r) => r.why === 'visible: rule eng-all'));
    assert.ok((await texts(page, '#tool-count'))[0]!.includes(MARKUP), 'the name as typed, as text');
    assert.equal(await page.$$eval('#tool-count img, #tool-list img', (e) => e.length), 0);
    assert.equal(await page.evaluate('window.pwned'), undefined);
  });

  it("Calls: each call's principal, denied calls included", async () => {
    await call(bridge.mcpUrl!, BOB, 'Gmail_GetEmails', {});
    await call(bridge.mcpUrl!, ALICE, 'Calculator_Add', { a: 1, b: 2 });
    await page.goto(`${base}/console/#calls`);
    await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length >= 2", { timeout: 15_000 });
    const rows = await page.$$eval('#recent-calls tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
    assert.deepEqual(
      rows.slice(0, 2).map((r) => [r[1], r[2], r[4]]),
      [
        ['Calculator_Add', 'alice', 'success'],
        ['Gmail_GetEmails', 'bob', 'denied'],
      ],
    );
    assert.equal(await page.$eval('#recent-calls tbody tr:nth-child(2) td:nth-child(3)', (td) => td.getAttribute('title')), 'token');
    await screenshot(page, 'console-principals-calls');
    assert.deepEqual(errors, [], 'no console errors once signed in');
  });
});

describe('console (bridge): an OAuth user named from outside, in a real browser', { skip, timeout: 120_000 }, () => {
  let as: OAuthServer;
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let browser: Browser;
  const AUDIENCE = 'http://127.0.0.1/mcp';

  before(async () => {
    as = await startOAuthServer({ bridgeAudience: AUDIENCE, bridgeClient: { id: 'bridge', secret: 'bridge-secret-0123456789' }, upstreamAudiences: [] });
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const config = `auth:\n  oauth: { issuer: '${as.issuer}', audience: '${AUDIENCE}', jwksUrl: '${as.jwksUrl}', resourceUrl: '${AUDIENCE}' }\n`;
    bridge = await startWithConfig(config, fixture.url, {});
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await bridge?.close();
    await fixture?.close();
    await as?.close();
  });

  it('the Calls view and the header show the name as text, cut, with its reordering characters replaced', async () => {
    const name = `${MARKUP}\u202e${'x'.repeat(300)}`;
    const token = await as.mintUserToken(name);
    await call(bridge.mcpUrl!, token, 'Calculator_Add', { a: 2, b: 2 });
    const { page, errors } = await openPage(browser);
    await signIn(page, bridge.mcpUrl!.replace(/\/mcp$/, ''), token, errors);
    await page.goto(`${bridge.mcpUrl!.replace(/\/mcp$/, '')}/console/#calls`);
    await page.waitForSelector('#recent-calls tbody tr');
    const shown = await page.$eval('#recent-calls tbody tr td:nth-child(3)', (td) => td.textContent);
    assert.equal(shown, `${MARKUP}\ufffd${'x'.repeat(128 - MARKUP.length - 1)}… (${name.length} characters)`);
    assert.equal((await texts(page, '#caller'))[0], `as ${shown}`);
    assert.equal(await page.$$eval('img', (e) => e.length), 0, 'no markup parsed');
    assert.equal(await page.evaluate('window.pwned'), undefined);
    assert.deepEqual(errors, []);
  });
});
