import { expect } from 'chai';
import type { ClientFixture } from './fixtures.js';
import { formOf, formsOf, linksWithClass, locationOf, type Browser, type FollowOptions, type Page } from './browser.js';

export const expectPage = (page: Page): Page => {
  if (page.location) throw new Error(`expected a page, left for ${page.location.href}`);
  return page;
};

/** The website's callback: the redirect that left the service, checked against the client's redirect_uri and state. */
export function callbackOf(landing: Page, client: ClientFixture): URLSearchParams {
  const website = locationOf(landing);
  expect(`${website.origin}${website.pathname}`).to.equal(client.redirectUri);
  expect(website.searchParams.get('state')).to.equal('st-42');
  return website.searchParams;
}

/** Accepts the authorization prompt (following redirects as `follow` says). */
export async function accept(browser: Browser, prompt: Page, follow?: FollowOptions): Promise<Page> {
  const form = formOf(prompt, { action: '/consent' });
  return browser.submit(form, {}, { name: 'decision', value: 'accept' }, follow);
}

/** Submits the sandbox page of the current challenge. */
export async function submitSandbox(browser: Browser, page: Page, choice: Record<string, string> = {}): Promise<Page> {
  return browser.submit(formOf(page, { action: '/submit' }), choice);
}

/** From the result page (after a pass): continue to the website without saving. */
export async function continueWithoutSaving(browser: Browser, result: Page): Promise<Page> {
  return browser.submit(formOf(result, { action: '/result/continue' }));
}

/** The `lang` of a page's <html> element. */
export const htmlLang = (page: Page): string | undefined => /<html lang="([^"]+)">/.exec(page.html)?.[1];

export type Decision = 'accept' | 'decline';

/** Whether the walk has left for `origin`: a page it serves, or a redirect to it not followed. */
const reached = (page: Page, origin: string): boolean => (page.location ?? page.url).origin === origin;

/** What a visitor does on one page of the sandbox walk (walkSandboxSteps). */
export type SandboxAction =
  | 'answer the prompt'
  | 'open the challenge'
  | 'answer the sandbox'
  | 'continue to the website';

/**
 * Walks a visitor through age-provider's pages in the TEST sandbox the way a person would: answers the prompt,
 * picks the first challenge offered, chooses "pass", continues to the website; stops on `doneOrigin`, or after
 * `limit` actions. Returns where it stopped and what it did, in order.
 */
export async function walkSandboxSteps(
  visitor: Browser,
  start: Page,
  doneOrigin: string,
  decision: Decision = 'accept',
  limit = 12,
): Promise<{ page: Page; actions: SandboxAction[] }> {
  let page = start;
  const actions: SandboxAction[] = [];
  while (actions.length < limit) {
    // Done on the website: reached (the demo serves it) or stopped before (a redirect_uri nothing serves).
    if (reached(page, doneOrigin)) break;
    const forms = formsOf(page);
    const prompt = forms.find((form) =>
      form.buttons.some((button) => button.name === 'decision' && button.value === decision),
    );
    const sandbox = forms.find((form) => form.choices.outcome?.includes('pass'));
    // The result page's "continue" form: posted, not the cancel form, not the form that saves an account.
    const proceed = forms.find(
      (form) =>
        form.method === 'POST' &&
        !(form.attributes.class ?? '').split(/\s+/).includes('cancel') &&
        !('password' in form.fields) &&
        !form.choices.outcome,
    );
    const challenge = linksWithClass(page, 'button')[0];
    if (prompt) {
      actions.push('answer the prompt');
      page = await visitor.submit(prompt, {}, { name: 'decision', value: decision });
    } else if (sandbox) {
      actions.push('answer the sandbox');
      page = await visitor.submit(sandbox, { outcome: 'pass' });
    } else if (proceed) {
      actions.push('continue to the website');
      page = await visitor.submit(proceed);
    } else if (challenge) {
      actions.push('open the challenge');
      page = await visitor.open(challenge);
    } else {
      const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(page.html)?.[1]?.trim();
      throw new Error(`stuck on ${page.url.href} (${page.status}, "${heading ?? 'no heading'}"):\n${visitor.trail()}`);
    }
  }
  return { page, actions };
}

/** walkSandboxSteps to the end: the page (or redirect) on `doneOrigin`. */
export async function walkSandbox(
  visitor: Browser,
  start: Page,
  doneOrigin: string,
  decision: Decision = 'accept',
): Promise<Page> {
  const { page } = await walkSandboxSteps(visitor, start, doneOrigin, decision);
  if (!reached(page, doneOrigin)) throw new Error(`no way back to ${doneOrigin}:\n${visitor.trail()}`);
  return page;
}
