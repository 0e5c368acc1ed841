import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Debian's chromium, driven headless by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** The two widths every page state is checked at. */
export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, mobile: { width: 390, height: 844 } } as const;

/** What axe reports, reduced to what a failure message needs. */
interface AxeResults {
  violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe in the page, evaluated by the driver (the page's own CSP still refuses every inline script). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(await axeSource);
  const results = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as AxeResults;
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** A fresh browser context at `viewport` (British English) with one page, and the problems it reports. */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, locale: 'en-GB' });
  const page = await context.newPage();
  const problems: string[] = [];
  // CSP violations and script errors; the expected 4xx answers of the error states are not problems.
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) problems.push(message.text());
  });
  return { context, page, problems };
}
