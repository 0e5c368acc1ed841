import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startDemo, type Demo, type DemoOptions } from '../../examples/demo/demo.js';
import { testSecrets } from './app.js';
import { createTestDatabase } from './database.js';

export interface TestDemo {
  demo: Demo;
  /** stops the demo, drops its database and removes its data folder */
  close(): Promise<void>;
}

/** The demo (age-provider and the shop) on free ports with a database and a data folder (named from `tmpPrefix`) of its own. */
export async function startTestDemo(tmpPrefix: string, options: DemoOptions = {}): Promise<TestDemo> {
  const database = await createTestDatabase();
  let dataDir: string | undefined;
  const cleanUp = async () => {
    await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    dataDir = await mkdtemp(join(tmpdir(), tmpPrefix));
    const demo = await startDemo({
      ...options,
      logLevel: 'silent',
      dataDir,
      port: 0,
      ...testSecrets,
      db: database.db,
      ...(database.url ? { databaseUrl: database.url } : {}),
    });
    return {
      demo,
      async close() {
        await demo.close();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** Collects the page's script errors, console errors and failed requests (a missing favicon is no problem). */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
      problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/** The TEST sandbox as a person clicks through it: accept, first challenge, "pass", continue to the website. */
export async function passSandbox(popup: Page, websiteName: string): Promise<void> {
  await passSandboxToResult(popup);
  await popup.getByRole('button', { name: `Continue to ${websiteName}` }).click();
}

/** The TEST sandbox up to its result page: accept, first challenge, "pass". */
export async function passSandboxToResult(popup: Page): Promise<void> {
  await popup.getByRole('button', { name: 'Accept and continue' }).click();
  const choice = popup.getByRole('heading', { name: 'Choose how to prove your age' });
  const sandbox = popup.getByRole('radio', { name: /^Pass/ });
  await choice.or(sandbox).first().waitFor();
  if (await choice.isVisible()) await popup.locator('ul.choices a.button').first().click();
  await sandbox.check();
  await popup.getByRole('button', { name: 'Send this result' }).click();
}
