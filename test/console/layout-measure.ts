/**
 * How a console view is laid out in the browser, measured the same way for
 * both consoles (layout.test.ts, oxp-server-layout.test.ts): what scrolls
 * sideways, each table's columns against the place they have, cells whose
 * content is cut, words broken mid-word, JSON boxes that scroll inside
 * themselves, and JSON keys that reach past their box.
 */
import assert from 'node:assert/strict';
import type { Page } from 'puppeteer-core';

/** The window widths the console is held to: a narrow window, a laptop, a desktop. */
export const WIDTHS = [760, 1280, 1920] as const;

export interface LayoutReport {
  viewport: number;
  /** document.documentElement.scrollWidth: more than the viewport is a page-wide sideways scroll. */
  pageWidth: number;
  /** Elements of the header and the view that scroll sideways (a table's wrapper, a JSON box, a list). */
  sideways: string[];
  tables: {
    id: string;
    width: number;
    /** The width of the place it has (its parent). */
    place: number;
    /** Its header cells as laid out; empty when the header is hidden (a table shown as blocks). */
    columns: { header: string; left: number; right: number; width: number }[];
    /** Its place's left and right edges. */
    placeLeft: number;
    placeRight: number;
  }[];
  /** Cells whose content is wider than the cell. */
  cut: string[];
  /** Names and words broken across lines between two letters or digits (a break at a <wbr> is no break in a word). */
  midWord: string[];
  /** JSON boxes that scroll inside themselves, either way. */
  innerScroll: string[];
  /** The width of each JSON column (Tools, Try a tool). */
  jsonColumns: number[];
  /** JSON keys with a line box past the right edge of their box's content. */
  keysOutside: string[];
}

// A string, not a function: tsx's name-keeping helper does not exist in the page.
const MEASURE = `(() => {
  const view = document.querySelector('.view:not([hidden])');
  const where = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const scope = [...document.querySelectorAll('header, header *'), view, ...view.querySelectorAll('*')];
  // The tool list's one-line description is cut with an ellipsis on purpose (its full text is the tool's own page).
  const sideways = scope
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible' && !el.matches('.tool-list small, .header-status span'))
    .map((el) => where(el) + ' ' + el.scrollWidth + '/' + el.clientWidth);
  const tables = [...view.querySelectorAll('table')].map((t) => {
    const r = t.getBoundingClientRect();
    const p = t.parentElement.getBoundingClientRect();
    const head = t.tHead && getComputedStyle(t.tHead).display !== 'none' ? [...t.tHead.rows[0].cells] : [];
    return { id: t.id, width: r.width, place: p.width, placeLeft: p.left, placeRight: p.right,
      columns: head.map((th) => { const c = th.getBoundingClientRect(); return { header: th.textContent, left: c.left, right: c.right, width: c.width }; }) };
  });
  const cut = [...view.querySelectorAll('td')].filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => td.dataset.label + ': ' + td.textContent);
  // A line break inside one text node between two letters or digits: a word cut in two, unless the word alone is
  // wider than its box. console.js marks where a name may break with <wbr>, which ends the text node: a break there
  // is not inside one.
  const midWord = [];
  const words = view.querySelectorAll('td:not(.value), th, .tool-list li, .card h3, .col h4, #tool-detail h3');
  const isWordChar = (ch) => /[\\p{L}\\p{N}]/u.test(ch);
  for (const el of words) {
    const style = getComputedStyle(el);
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('small')) continue;
      const rects = [...node.data].map((_, i) => {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        return [...range.getClientRects()].find((x) => x.width > 0);
      });
      for (let i = 1; i < node.data.length; i++) {
        if (!rects[i] || !rects[i - 1] || !isWordChar(node.data[i]) || !isWordChar(node.data[i - 1]) || rects[i].top <= rects[i - 1].top + 2) continue;
        let start = i - 1;
        let end = i;
        while (start > 0 && isWordChar(node.data[start - 1])) start--;
        while (end < node.data.length - 1 && isWordChar(node.data[end + 1])) end++;
        const wordWidth = rects.slice(start, end + 1).reduce((w, r) => w + (r ? r.width : 0), 0);
        if (wordWidth <= room)
          midWord.push(where(el) + ' "' + el.textContent + '" between "' + node.data.slice(0, i) + '" and "' + node.data.slice(i) + '"');
      }
    }
  }
  const pres = [...view.querySelectorAll('pre')];
  const innerScroll = pres.filter((p) => p.scrollWidth > p.clientWidth + 1 || p.scrollHeight > p.clientHeight + 1)
    .map((p) => (p.closest('.col')?.dataset.revision ?? 'pre') + ' ' + p.scrollWidth + 'x' + p.scrollHeight + ' in ' + p.clientWidth + 'x' + p.clientHeight);
  const keysOutside = [];
  for (const p of pres) {
    const right = p.getBoundingClientRect().right - parseFloat(getComputedStyle(p).paddingRight);
    for (const k of p.querySelectorAll('.k'))
      if ([...k.getClientRects()].some((r) => r.right > right + 1)) keysOutside.push((p.closest('.col')?.dataset.revision ?? 'pre') + ' ' + k.textContent);
  }
  return { viewport: innerWidth, pageWidth: document.documentElement.scrollWidth, sideways, tables, cut, midWord, innerScroll,
    jsonColumns: [...view.querySelectorAll('.columns .col')].map((c) => c.getBoundingClientRect().width), keysOutside };
})()`;

export function measureView(page: Page): Promise<LayoutReport> {
  return page.evaluate(MEASURE) as Promise<LayoutReport>;
}

/**
 * What every view must be at every width: no sideways scroll (the page, a table, a box), each table within its
 * place and each of its columns visible, nothing cut, no word broken, no JSON box scrolling inside itself, no key
 * past its box.
 */
export function assertReadable(report: LayoutReport, what: string): void {
  assert.ok(report.pageWidth <= report.viewport, `${what}: the page does not scroll sideways (${report.pageWidth} px in ${report.viewport})`);
  assert.deepEqual(report.sideways, [], `${what}: nothing scrolls sideways`);
  for (const t of report.tables) {
    assert.ok(t.width <= t.place + 1, `${what}: #${t.id} fits its place (${t.width} px in ${t.place})`);
    for (const c of t.columns) {
      assert.ok(
        c.left >= t.placeLeft - 1 && c.right <= t.placeRight + 1,
        `${what}: #${t.id}'s column ${c.header} is visible (${c.left}–${c.right} in ${t.placeLeft}–${t.placeRight})`,
      );
      assert.ok(c.width >= 40, `${what}: #${t.id}'s column ${c.header} is ${c.width} px wide`);
    }
  }
  assert.deepEqual(report.cut, [], `${what}: no cell is cut`);
  assert.deepEqual(report.midWord, [], `${what}: no word is broken across lines`);
  assert.deepEqual(report.innerScroll, [], `${what}: no JSON box scrolls inside itself`);
  assert.deepEqual(report.keysOutside, [], `${what}: every JSON key wraps inside its box`);
}

/**
 * Below 1280 px (the last calls as labelled blocks): short values on one line, no one-character columns (arguments,
 * results and outcome counts at least 120 px wide).
 */
export async function assertBlocksUsable(page: Page): Promise<void> {
  const cells = (await page.evaluate(`(() => {
    const lines = (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    };
    return [...document.querySelectorAll('#recent-calls tbody td, #tool-stats tbody td')].map((td) => ({
      header: td.closest('table').tHead.rows[0].cells[td.cellIndex].textContent,
      text: td.textContent,
      lines: lines(td),
      width: td.getBoundingClientRect().width,
    }));
  })()`)) as { header: string; text: string; lines: number; width: number }[];
  const oneLine = new Set(['Time', 'Revision', 'Outcome', 'Duration', 'call_id', 'Trace id', 'Calls/s', 'Calls', 'Upstream errors', 'p50', 'p99']);
  // A name (tool, principal) breaks only where console.js marks it, or when longer than its place: assertReadable.
  const names = new Set(['Tool', 'Principal']);
  for (const cell of cells.filter((c) => !names.has(c.header))) {
    if (oneLine.has(cell.header)) assert.equal(cell.lines, 1, `${cell.header} "${cell.text}" on one line (${cell.width} px wide)`);
    else assert.ok(cell.width >= 120, `${cell.header} "${cell.text}": ${cell.width} px wide`);
  }
}
