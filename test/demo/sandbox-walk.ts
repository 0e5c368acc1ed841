import { formsOf, linksWithClass, type Browser, type Page } from '../helpers/browser.js';

export type Decision = 'accept' | 'decline';

/**
 * Walks a visitor through age-provider's pages in the TEST sandbox the way a person would: answers the prompt,
 * picks the first challenge offered, chooses "pass", continues to the website; stops on `doneOrigin`.
 */
export async function walkSandbox(visitor: Browser, start: Page, doneOrigin: string, decision: Decision = 'accept'): Promise<Page> {
  let page = start;
  for (let step = 0; step < 12; step += 1) {
    // Done on the website: reached (the demo serves it) or stopped before (a redirect_uri nothing serves).
    if ((page.location ?? page.url).origin === doneOrigin) return page;
    const forms = formsOf(page);
    const prompt = forms.find((form) => form.buttons.some((button) => button.name === 'decision' && button.value === decision));
    const sandbox = forms.find((form) => form.choices.outcome?.includes('pass'));
    // The result page's "continue" form: posted, not the cancel form, not the form that saves an account.
    const proceed = forms.find((form) => form.method === 'POST' && !(form.attributes.class ?? '').split(/\s+/).includes('cancel') && !('password' in form.fields) && !form.choices.outcome);
    const challenge = linksWithClass(page, 'button')[0];
    if (prompt) page = await visitor.submit(prompt, {}, { name: 'decision', value: decision });
    else if (sandbox) page = await visitor.submit(sandbox, { outcome: 'pass' });
    else if (proceed) page = await visitor.submit(proceed);
    else if (challenge) page = await visitor.open(challenge);
    else {
      const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(page.html)?.[1]?.trim();
      throw new Error(`stuck on ${page.url.href} (${page.status}, "${heading ?? 'no heading'}"):\n${visitor.trail()}`);
    }
  }
  throw new Error(`no way back to ${doneOrigin}:\n${visitor.trail()}`);
}
