/**
 * How the bridge console reads, in a real headless Chromium: the Upstreams
 * chart leaves a gap where a slot had no call; every view at 760, 1280 and
 * 1920 px scrolls nothing sideways, shows every column, breaks no word and
 * wraps long JSON keys inside their box (layout-measure.ts); a tool's
 * per-revision JSON wraps only
 * between values (indented under the line it continues, a key only when it
 * is wider than its line) with what differs from the revision to its left
 * marked. Screenshots go to test/artifacts/console-layout-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { MCP_REVISIONS } from '../../src/core/mcp-versions.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders, testConfig } from '../helpers/bridge-harness.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { exchange, request } from '../helpers/it-http.js';
import { browserMissing, launchBrowser, openPage, screenshot, texts } from './browser.js';
import { assertBlocksUsable, assertReadable, measureView, WIDTHS } from './layout-measure.js';

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

/** One character of a JSON column as laid out: where it is, and which logical JSON line it belongs to. */
interface LaidChar {
  ch: string;
  line: number;
  top: number;
  left: number;
  width: number;
}

describe('console layout (bridge) in a real browser', { skip, timeout: 120_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let base: string;
  let calledAll = false;

  before(async () => {
    fixture = await startOxpFixture({ tools: [...integrationTools(), searchTool] });
    bridge = await startBridge(testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN }), createLogger('silent'));
    base = bridge.mcpUrl!.replace(/\/mcp$/, '');
    // The Upstreams test's first call, made before the browser starts: its wait for an empty slot (10-20 s) then
    // includes the browser's start and the login.
    await call('Math_Double', { x: 1 });
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
    // The first call was made in before().
    // The slot the call was recorded in, as the console has it (the clock here may already be in the next one).
    const api = (await (await fetch(`${base}/console/api/upstreams`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      upstreams: { window: { slots: { start: number; count: number }[] } }[];
    };
    const first = api.upstreams[0]!.window.slots.find((s) => s.count > 0)!.start / SLOT_MS;
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

  for (const width of WIDTHS)
    it(`every view at ${width} px: nothing scrolls sideways, every column visible, no word broken, no JSON box scrolling inside itself`, async () => {
      if (!calledAll) {
        await call('Search_Web', { query: 'mcp gateways', limit: 3 });
        await call('Doorbell_Ring', { doorbell_id: 'doorbell1' });
        await call('System_GetTimestamp', {});
        calledAll = true;
      }
      await page.setViewport({ width, height: 900 });
      try {
        await page.goto(`${base}/console/#upstreams`);
        await page.waitForSelector('#upstream-list article');
        assertReadable(await measureView(page), `Upstreams at ${width}`);

        await page.goto(`${base}/console/#tools/Search_Web`);
        await page.waitForSelector('#tool-detail .col[data-revision="2026-07-28"]');
        const tools = await measureView(page);
        assertReadable(tools, `Tools at ${width}`);
        for (const w of tools.jsonColumns)
          assert.ok(w >= 260, `Tools at ${width}: each revision's column is readable (${tools.jsonColumns.map(Math.round).join(', ')} px)`);
        await screenshot(page, `console-layout-tools-${width}`);

        await page.goto(`${base}/console/#calls`);
        await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length >= 6");
        const calls = await measureView(page);
        assertReadable(calls, `Calls at ${width}`);
        const recent = calls.tables.find((t) => t.id === 'recent-calls')!;
        // From 1280 px the last calls are a table with all ten columns; below, a labelled block per call.
        assert.equal(recent.columns.length, width >= 1280 ? 10 : 0, `Calls at ${width}: ${JSON.stringify(recent.columns.map((c) => c.header))}`);
        if (width < 1280) await assertBlocksUsable(page);
        await screenshot(page, `console-layout-calls-${width}`);

        await page.goto('about:blank'); // a fresh page: no form or answer left from the width before
        await page.goto(`${base}/console/#try/Math_Double`);
        await page.waitForSelector('#arg-x');
        await page.type('#arg-x', '21');
        await page.click('#try-form button[type=submit]');
        await page.waitForSelector('#try-result .col[data-revision="2026-07-28"]');
        const tried = await measureView(page);
        assertReadable(tried, `Try a tool at ${width}`);
        assert.ok(
          (await texts(page, '#try-result .col[data-revision="2026-07-28"] .k')).some((k) => k.startsWith('"io.modelcontextprotocol/')),
          'the 2026-07-28 answer has its io.modelcontextprotocol/ key',
        );
        await screenshot(page, `console-layout-try-${width}`);
        assert.deepEqual(errors, []);
      } finally {
        await page.setViewport({ width: 1000, height: 760 });
      }
    });

  it('Tool detail: JSON wraps only between values, each continuation indented under its line; what differs from the revision to the left is marked', async () => {
    await page.goto(`${base}/console/#tools/Search_Web`);
    await page.waitForSelector('#tool-detail .col[data-revision="2026-07-28"]');
    await screenshot(page, 'console-layout-tool');
    const columns = (await page.evaluate(`(() => {
      // Every character of each column's JSON, with its logical line: a new line at each newline character, and at each
      // block element (a page may lay out a line per element).
      const blockOf = (node, pre) => {
        for (let el = node.parentElement; el && el !== pre; el = el.parentElement) if (getComputedStyle(el).display !== 'inline') return el;
        return pre;
      };
      return [...document.querySelectorAll('#tool-detail .col')].map((col) => {
        const pre = col.querySelector('pre');
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        const chars = [];
        let line = 0;
        let block = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const b = blockOf(node, pre);
          if (block !== null && b !== block) line++;
          block = b;
          for (let i = 0; i < node.data.length; i++) {
            if (node.data[i] === '\\n') { line++; continue; }
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const r = [...range.getClientRects()].find((x) => x.width > 0) || range.getBoundingClientRect();
            chars.push({ ch: node.data[i], line, top: Math.round(r.top), left: r.left, width: r.width });
          }
        }
        const right = pre.getBoundingClientRect().right - parseFloat(getComputedStyle(pre).paddingRight);
        return { revision: col.dataset.revision, json: JSON.parse(pre.textContent), chars, right };
      });
    })()`)) as { revision: string; json: unknown; chars: LaidChar[]; right: number }[];
    assert.deepEqual(
      columns.map((c) => c.revision),
      [...MCP_REVISIONS],
    );
    let wraps = 0;
    for (const { revision, chars, right } of columns) {
      const byLine = new Map<number, LaidChar[]>();
      for (const c of chars) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c]);
      for (const line of byLine.values()) {
        const text = line.map((c) => c.ch).join('');
        const inString = stringValueSpans(text);
        const start = line.find((c) => c.ch !== ' ')!.left;
        for (let i = 1; i < line.length; i++) {
          if (line[i]!.top <= line[i - 1]!.top) continue;
          wraps++;
          const between = line[i - 1]!.ch === ' ' || line[i]!.ch === ' ';
          if (!between && !inString[i]) {
            // Inside a key only when the key could not fit its line: wider than from where it starts to the box's edge.
            const key = /^\s*("(?:[^"\\]|\\.)*":)/.exec(text);
            const start = key ? key[0].length - key[1]!.length : 0;
            assert.ok(key && i < key[0].length, `${revision}: "${text}" breaks inside a number or a literal at ${i}`);
            const keyWidth = line.slice(start, key[0].length).reduce((w, c) => w + c.width, 0);
            assert.ok(line[start]!.left + keyWidth > right + 1, `${revision}: "${text}" breaks inside a key that fits its line, at ${i}`);
            assert.match(line[i - 1]!.ch, /[./]/, `${revision}: "${text}" breaks a key after a / or a .`);
          }
          const next = line.slice(i).find((c) => c.ch !== ' ')!;
          assert.ok(next.left > start + 1, `${revision}: "${text}" continues indented under its line (${next.left} > ${start})`);
        }
      }
    }
    assert.ok(wraps > 0, 'the long description wraps');

    // Marked: the fields of each revision that differ from the revision to its left.
    const marks = (await page.evaluate(`[...document.querySelectorAll('#tool-detail .col')].map((col) => ({
      changed: [...col.querySelectorAll('pre .changed')].map((el) => el.dataset.path),
      removed: col.dataset.removed || '',
      markedBg: [...col.querySelectorAll('pre .changed')].map((el) => getComputedStyle(el).backgroundColor),
      plainBg: [...col.querySelectorAll('pre [data-path]:not(.changed)')].map((el) => getComputedStyle(el).backgroundColor),
      note: col.querySelector('h4').textContent,
    }))`)) as { changed: string[]; removed: string; markedBg: string[]; plainBg: string[]; note: string }[];
    assert.deepEqual(marks[0]!.changed, [], 'the first revision has nothing to its left');
    for (let i = 1; i < columns.length; i++) {
      const expected = differences(columns[i - 1]!.json, columns[i]!.json);
      const shown = marks[i]!;
      assert.deepEqual(shown.changed.sort(), expected.changed.sort(), `${columns[i]!.revision}: the fields that differ are marked`);
      assert.deepEqual(shown.removed.split(' ').filter(Boolean).sort(), expected.removed.sort(), `${columns[i]!.revision}: the fields it lacks are named`);
      if (expected.changed.length + expected.removed.length) assert.match(shown.note, /differ|new|changed|removed/, 'the heading says so');
      for (const bg of shown.markedBg) assert.ok(!shown.plainBg.includes(bg), 'a marked line looks different from the others');
    }
    assert.ok(
      differences(columns[1]!.json, columns[2]!.json).changed.some((p) => p.endsWith('/outputSchema')),
      '2025-06-18 adds outputSchema: something is marked',
    );
    assert.deepEqual(errors, []);
  });
});

/** For each character of a JSON line, whether it is inside a string value (not a key). */
function stringValueSpans(text: string): boolean[] {
  const inside = new Array<boolean>(text.length).fill(false);
  const re = /"(?:[^"\\]|\\.)*"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const isKey = /^\s*:/.test(text.slice(m.index + m[0].length));
    if (!isKey) for (let i = m.index + 1; i < m.index + m[0].length; i++) inside[i] = true;
  }
  return inside;
}

/**
 * What differs from `left` in `right`, as JSON pointers: values changed or added in `right` (the smallest such
 * paths: inside an object or an equally long array both have, the members that differ), and members `right` lacks.
 */
function differences(left: unknown, right: unknown, path = ''): { changed: string[]; removed: string[] } {
  const out = { changed: [] as string[], removed: [] as string[] };
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (JSON.stringify(left) === JSON.stringify(right)) return out;
  if (isObject(left) && isObject(right)) {
    for (const key of Object.keys(right)) {
      const p = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(key in left)) out.changed.push(p);
      else {
        const inner = differences(left[key], right[key], p);
        out.changed.push(...inner.changed);
        out.removed.push(...inner.removed);
      }
    }
    for (const key of Object.keys(left)) if (!(key in right)) out.removed.push(`${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    return out;
  }
  if (Array.isArray(left) && Array.isArray(right) && left.length === right.length) {
    right.forEach((v, i) => {
      const inner = differences(left[i], v, `${path}/${i}`);
      out.changed.push(...inner.changed);
      out.removed.push(...inner.removed);
    });
    return out;
  }
  out.changed.push(path);
  return out;
}
