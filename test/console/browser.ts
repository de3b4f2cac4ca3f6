/**
 * A real headless Chromium for the console tests (Debian's `chromium`,
 * driven by puppeteer-core). Without the browser the tests skip locally, with
 * the reason; under CI=true a missing browser fails the run.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** Why the browser tests cannot run here, or undefined. Throws under CI=true. */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no browser at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${reason}: the console browser tests must run in CI`);
  return reason;
}

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

/** A new page at the size the screenshots use, with its errors collected as they happen. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 760 });
  return { page, errors: watchErrors(page) };
}

/** Console errors and uncaught page errors, as they happen. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`));
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });
}

/** The text content of every element matching `selector`. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ''));
}

/** First contentful paint and DOMContentLoaded of the page's navigation (ms), from the browser's performance timing. */
export function paintTimings(page: Page): Promise<{ firstPaint: number; firstContentfulPaint: number; domContentLoaded: number }> {
  // A string, not a function: tsx's name-keeping helper does not exist in the page.
  return page.evaluate(`(() => {
    const paints = performance.getEntriesByType('paint');
    const at = (name) => (paints.find((e) => e.name === name) || { startTime: -1 }).startTime;
    const nav = performance.getEntriesByType('navigation')[0];
    return { firstPaint: at('first-paint'), firstContentfulPaint: at('first-contentful-paint'), domContentLoaded: nav ? nav.domContentLoadedEventEnd : -1 };
  })()`) as Promise<{ firstPaint: number; firstContentfulPaint: number; domContentLoaded: number }>;
}

/** A GET with headers fetch() may not set (Host), on node:http. */
export function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
