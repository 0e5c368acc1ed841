import { expect } from 'chai';
import type { TestApp } from '../helpers/app.js';
import { Browser, formsOf, linksWithClass, type Form, type Page } from '../helpers/browser.js';
import { createWebmasterFixture, startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl } from '../helpers/relying-party.js';

/** A double click, a retrying browser, an impatient person: the same form, same cookies, same token, at once. */
const REPEATS = 6;

interface Answer {
  status: number;
  location: string | null;
}

/** Posts `form` REPEATS times in parallel from one browser (its fields as the page rendered them, the first button). */
async function repeat(browser: Browser, form: Form): Promise<Answer[]> {
  const button = form.buttons[0];
  const fields = { ...form.fields, ...(button?.name ? { [button.name]: button.value } : {}) };
  return Promise.all(Array.from({ length: REPEATS }, async () => {
    const response = await browser.request(form.action, { method: 'POST', body: fields, csrf: null });
    await response.arrayBuffer();
    return { status: response.status, location: response.headers.get('location') };
  }));
}

/**
 * Never a 5xx: every repeat answered as the first was, a redirect to the same place (or, for a form whose rendered
 * defaults are not a valid submission, the same form page with its field errors).
 */
function expectSameLanding(answers: Answer[], what: string): string {
  const summary = `${what}: ${JSON.stringify(answers)}`;
  for (const answer of answers) expect(answer.status, summary).to.be.below(500);
  expect(new Set(answers.map((answer) => answer.status)).size, summary).to.equal(1);
  expect(new Set(answers.map((answer) => answer.location)).size, summary).to.equal(1);
  return answers[0]!.location ?? '';
}

/** The form a visitor moves forward with on a page of the flow: the prompt's accept, the sandbox's pass, the result's continue. */
function forwardForm(page: Page): { form: Form; values: Record<string, string> } | undefined {
  const forms = formsOf(page).filter((form) => form.method === 'POST');
  const prompt = forms.find((form) => form.buttons.some((button) => button.name === 'decision' && button.value === 'accept'));
  if (prompt) return { form: { ...prompt, buttons: prompt.buttons.filter((button) => button.value === 'accept') }, values: {} };
  const sandbox = forms.find((form) => form.choices.outcome?.includes('pass'));
  if (sandbox) return { form: { ...sandbox, fields: { ...sandbox.fields, outcome: 'pass' } }, values: {} };
  const proceed = forms.find((form) => !(form.attributes.class ?? '').split(/\s+/).includes('cancel') && !('password' in form.fields));
  return proceed ? { form: proceed, values: {} } : undefined;
}

describe('repeated submits of every form, in parallel: never a 5xx, one effect', function () {
  this.timeout(180_000);
  let app: TestApp;
  let client: ClientFixture;
  before(async () => {
    ({ app, client } = await startAppWithClient({ environment: 'TEST', challenges: ['selfie'] }));
  });
  after(() => app.close());

  const count = async (table: string) => Number((await app.database.db(table).count({ n: '*' }).first())?.n ?? 0);

  it('visitor: every form of a flow, each posted six times at once, lands where the first did; one verification, one grant', async () => {
    const browser = new Browser(app.url, { stopAt: client.redirectUri });
    let page = await browser.open(authorizationUrl(app.url, client));
    const verificationsBefore = await count('verifications');
    const posted: string[] = [];
    for (let step = 0; step < 10 && !page.location; step++) {
      const forward = forwardForm(page);
      if (!forward) {
        const challenge = linksWithClass(page, 'button')[0];
        if (!challenge) throw new Error(`stuck on ${page.url.href}:\n${browser.trail()}`);
        page = await browser.open(challenge);
        continue;
      }
      posted.push(forward.form.action.pathname.replace(/interaction\/[^/]+/, 'interaction/:uid'));
      const landing = expectSameLanding(await repeat(browser, forward.form), forward.form.action.pathname);
      expect(landing, browser.trail()).to.not.equal('');
      page = await browser.open(new URL(landing, page.url));
    }
    expect(page.location?.href.startsWith(client.redirectUri), browser.trail()).to.equal(true);
    expect(posted).to.include.members(['/v1/oauth2/interaction/:uid/consent', '/v1/oauth2/interaction/:uid/result/continue']);
    // one effect: one verification recorded, linked to the grant the website's code stands for
    expect(await count('verifications')).to.equal(verificationsBefore + 1);
    const code = page.location!.searchParams.get('code');
    expect(code).to.be.a('string');
  });

  it('platform: every form of every page a signed-in webmaster reaches, each posted six times at once, lands where the first did', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const browser = new Browser(app.url);
    await browser.open('/platform/signin');
    await browser.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
    const created = await browser.post('/platform/websites', { name: 'Repeats', domain: 'repeats.example.com', language: 'auto', challenges: ['selfie'], regions: '' });
    expect(created.url.pathname).to.match(/^\/platform\/websites\/\d+$/);
    // the pages a webmaster reaches from the list, each once: every form on them, but signing out (done last)
    const seen = new Set<string>();
    const queue = ['/platform/websites'];
    const forms: Form[] = [];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const page = await browser.open(path);
      forms.push(...formsOf(page).filter((form) => form.method === 'POST'));
      for (const [, href = ''] of page.html.matchAll(/<a\b[^>]*href="(\/platform[^"#?]*)"/g)) if (!seen.has(href)) queue.push(href);
    }
    const actions = [...new Set(forms.map((form) => form.action.pathname))];
    expect(actions.length, actions.join(' ')).to.be.greaterThan(4);
    const ordered = [...forms.filter((form) => !form.action.pathname.endsWith('/signout')), ...forms.filter((form) => form.action.pathname.endsWith('/signout'))];
    const done = new Set<string>();
    for (const form of ordered) {
      if (done.has(form.action.pathname + JSON.stringify(form.buttons))) continue;
      done.add(form.action.pathname + JSON.stringify(form.buttons));
      // each form fresh from its page, so its token is the current one
      const page = await browser.open(new URL(form.action.pathname.replace(/\/(regenerate|update|check|token)$/, ''), app.url));
      const fresh = formsOf(page).find((candidate) => candidate.action.pathname === form.action.pathname && JSON.stringify(candidate.buttons) === JSON.stringify(form.buttons)) ?? form;
      expectSameLanding(await repeat(browser, fresh), form.action.pathname);
    }
    expect(await count('websites')).to.be.greaterThan(0);
  });
});
