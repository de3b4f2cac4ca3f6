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
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { MCP_VERSIONS } from '../../src/core/mcp-versions.js';
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

/** One character of a JSON column as laid out: where it is, and which logical JSON line it belongs to. */
interface LaidChar {
  ch: string;
  line: number;
  top: number;
  left: number;
}

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

  it('Calls: usable at 760 px wide (no one-character columns, nothing cut, no page-wide scroll)', async () => {
    await call('Search_Web', { query: 'mcp gateways', limit: 3 });
    await call('Doorbell_Ring', { doorbell_id: 'doorbell1' });
    await call('System_GetTimestamp', {});
    await page.setViewport({ width: 760, height: 900 });
    try {
      await page.goto(`${base}/console/#calls`);
      await page.waitForFunction("document.querySelectorAll('#recent-calls tbody tr').length >= 6");
      await screenshot(page, 'console-layout-calls-760');
      const layout = await page.evaluate(`(() => {
        // Visual lines of an element's text: distinct tops of its text's line boxes.
        const lines = (el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
        };
        const cells = (table) => [...document.querySelectorAll(table + ' tbody td')].map((td) => ({
          header: document.querySelector(table + ' thead').rows[0].cells[td.cellIndex].textContent,
          text: td.textContent,
          lines: lines(td),
          cut: td.scrollWidth > td.clientWidth + 1,
          width: td.getBoundingClientRect().width,
        }));
        const overflowing = [...document.querySelectorAll('#view-calls table')].filter((t) => t.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right + 1).map((t) => t.id);
        return { pageWidth: document.documentElement.scrollWidth, overflowing, recent: cells('#recent-calls'), stats: cells('#tool-stats') };
      })()`);
      const { pageWidth, overflowing, recent, stats } = layout as {
        pageWidth: number;
        overflowing: string[];
        recent: { header: string; text: string; lines: number; cut: boolean; width: number }[];
        stats: { header: string; text: string; lines: number; cut: boolean; width: number }[];
      };
      assert.ok(pageWidth <= 760, `the page does not scroll sideways: ${pageWidth} px`);
      assert.deepEqual(overflowing, [], 'each table fits its place');
      const oneLine = new Set(['Time', 'Tool', 'Principal', 'Revision', 'Outcome', 'Duration', 'call_id', 'Trace id', 'Calls/s', 'Calls', 'p50', 'p99']);
      for (const cell of [...recent, ...stats]) {
        assert.ok(!cell.cut, `${cell.header} "${cell.text}" is not cut`);
        if (oneLine.has(cell.header)) assert.equal(cell.lines, 1, `${cell.header} "${cell.text}" on one line (${cell.width} px wide)`);
        else assert.ok(cell.width >= 120, `${cell.header} "${cell.text}": ${cell.width} px wide`);
      }
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
            chars.push({ ch: node.data[i], line, top: Math.round(r.top), left: r.left });
          }
        }
        return { revision: col.dataset.revision, json: JSON.parse(pre.textContent), chars };
      });
    })()`)) as { revision: string; json: unknown; chars: LaidChar[] }[];
    assert.deepEqual(
      columns.map((c) => c.revision),
      [...MCP_VERSIONS],
    );
    let wraps = 0;
    for (const { revision, chars } of columns) {
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
          assert.ok(between || inString[i], `${revision}: "${text}" breaks inside a key, a number or a literal at ${i}`);
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
