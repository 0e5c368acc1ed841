import { expect } from 'chai';
import type { TestApp } from '../helpers/app.js';
import { Browser, formOf, formsOf, linksWithClass, type Form, type Page } from '../helpers/browser.js';
import { createWebmasterFixture, startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl } from '../helpers/relying-party.js';

/** A double click, a retrying browser, an impatient person: the same form, same cookies, same token, at once. */
const REPEATS = 6;

interface Answer {
  status: number;
  location: string | null;
}

/** Posts `form` REPEATS times in parallel from one browser (its fields as the page rendered them, `values` over them, the first button). */
async function repeat(browser: Browser, form: Form, values: Record<string, string | string[]> = {}): Promise<Answer[]> {
  const button = form.buttons[0];
  const fields = { ...form.fields, ...values, ...(button?.name ? { [button.name]: button.value } : {}) };
  return Promise.all(
    Array.from({ length: REPEATS }, async () => {
      const response = await browser.request(form.action, { method: 'POST', body: fields, csrf: null });
      await response.arrayBuffer();
      return { status: response.status, location: response.headers.get('location') };
    }),
  );
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
  const prompt = forms.find((form) =>
    form.buttons.some((button) => button.name === 'decision' && button.value === 'accept'),
  );
  if (prompt)
    return { form: { ...prompt, buttons: prompt.buttons.filter((button) => button.value === 'accept') }, values: {} };
  const sandbox = forms.find((form) => form.choices.outcome?.includes('pass'));
  if (sandbox) return { form: { ...sandbox, fields: { ...sandbox.fields, outcome: 'pass' } }, values: {} };
  const proceed = forms.find(
    (form) => !(form.attributes.class ?? '').split(/\s+/).includes('cancel') && !('password' in form.fields),
  );
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
    expect(posted).to.include.members([
      '/v1/oauth2/interaction/:uid/consent',
      '/v1/oauth2/interaction/:uid/result/continue',
    ]);
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
    const created = await browser.post('/platform/websites', {
      name: 'Repeats',
      domain: 'repeats.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    expect(created.url.pathname).to.match(/^\/platform\/websites\/\d+\/integrate$/);
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
      for (const [, href = ''] of page.html.matchAll(/<a\b[^>]*href="(\/platform[^"#?]*)"/g))
        if (!seen.has(href)) queue.push(href);
    }
    const actions = [...new Set(forms.map((form) => form.action.pathname))];
    expect(actions.length, actions.join(' ')).to.be.greaterThan(4);
    const ordered = [
      ...forms.filter((form) => !form.action.pathname.endsWith('/signout')),
      ...forms.filter((form) => form.action.pathname.endsWith('/signout')),
    ];
    const done = new Set<string>();
    for (const form of ordered) {
      if (done.has(form.action.pathname + JSON.stringify(form.buttons))) continue;
      done.add(form.action.pathname + JSON.stringify(form.buttons));
      // each form fresh from its page, so its token is the current one
      const page = await browser.open(
        new URL(form.action.pathname.replace(/\/(regenerate|update|check|token)$/, ''), app.url),
      );
      const fresh =
        formsOf(page).find(
          (candidate) =>
            candidate.action.pathname === form.action.pathname &&
            JSON.stringify(candidate.buttons) === JSON.stringify(form.buttons),
        ) ?? form;
      expectSameLanding(await repeat(browser, fresh), form.action.pathname);
    }
    expect(await count('websites')).to.be.greaterThan(0);
  });

  it('platform: each form that creates or regenerates something, posted six times at once, has one effect and one landing', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const browser = new Browser(app.url);
    await browser.open('/platform/signin');
    await browser.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
    const db = app.database.db;
    // Every change of a website key, counted by the database itself (a key is replaced in place: no row to count).
    await db.raw('CREATE TABLE IF NOT EXISTS test_key_changes (website_id bigint)');
    await db.raw(`CREATE OR REPLACE FUNCTION test_count_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_key_changes VALUES (NEW.website_id); RETURN NULL; END $$`);
    await db.raw(
      'CREATE OR REPLACE TRIGGER test_key_change AFTER UPDATE ON website_keys FOR EACH ROW EXECUTE FUNCTION test_count_key_change()',
    );
    const once = async (
      path: string,
      action: string | RegExp,
      values: Record<string, string | string[]> = {},
    ): Promise<string> => {
      const form = formOf(await browser.open(path), { action });
      expect(form.fields._once, `${path}: the form carries its one-effect value`).to.be.a('string').and.not.equal('');
      const landing = expectSameLanding(await repeat(browser, form, values), String(action));
      expect(landing, String(action)).to.match(/^\/platform\//);
      return landing;
    };

    const websites = await count('websites');
    const created = await once('/platform/websites', '/platform/websites', {
      name: 'Once',
      domain: 'once.example.com',
      challenges: ['selfie'],
    });
    expect(await count('websites'), 'one website').to.equal(websites + 1);
    const website = /^\/platform\/websites\/(\d+)/.exec(created)![1]!;

    const [configs, credentials] = [await count('oauth2_configs'), await count('oauth2_credentials')];
    await once(`/platform/websites/${website}/settings`, '/oauth2/live', {
      redirectUris: 'https://once.example.com/callback',
    });
    expect(await count('oauth2_configs'), 'one OAuth2 configuration').to.equal(configs + 1);
    expect(await count('oauth2_credentials'), 'one pair of credentials').to.equal(credentials + 1);

    await once(`/platform/websites/${website}/keys/test/regenerate`, '/keys/test/regenerate');
    expect(
      await db('test_key_changes')
        .where('website_id', website)
        .count({ n: '*' })
        .first()
        .then((row) => Number(row?.n)),
      'one new key',
    ).to.equal(1);

    await once(`/platform/websites/${website}/oauth2/live/regenerate`, '/oauth2/live/regenerate');
    expect(await count('oauth2_credentials'), 'one regeneration of the credentials').to.equal(credentials + 2);

    const webhooks = await count('webhooks');
    await once(`/platform/websites/${website}/webhooks`, `/platform/websites/${website}/webhooks`, {
      url: 'https://once.example.com/hooks',
      events: ['verification.completed'],
    });
    expect(await count('webhooks'), 'one webhook').to.equal(webhooks + 1);
    const hook = (await db('webhooks').where('website_id', website).first<{ id: string }>('id'))!.id;
    const messages = await count('webhook_messages');
    await once(`/platform/websites/${website}/webhooks`, `/platform/websites/${website}/webhooks/${hook}/test`);
    expect(await count('webhook_messages'), 'one test message').to.equal(messages + 1);

    const tokens = await count('api_tokens');
    await once('/platform/keys', '/platform/keys', { name: 'once', access: 'write', website: 'all', expires: 'never' });
    expect(await count('api_tokens'), 'one new API key').to.equal(tokens + 1);
    const keys = await browser.open('/platform/keys');
    const shown = /value="(avk_[A-Za-z0-9_-]{20,})"/.exec(keys.html)?.[1];
    expect(shown, 'the new key is shown, as after a single click').to.be.a('string');
    expect(
      (await fetch(`${app.url}/external/website`, { headers: { authorization: `Bearer ${shown}` } })).status,
      'and it is the one that works',
    ).to.equal(200);

    const deletions = () =>
      db('audit_entries')
        .where({ chain: `website:${website}`, action: 'website.deleted' })
        .count({ n: '*' })
        .first()
        .then((row) => Number(row?.n));
    expect(
      await once(`/platform/websites/${website}/delete`, `/platform/websites/${website}/delete`, { confirm: 'Once' }),
    ).to.match(/^\/platform\/websites\b/);
    expect(await db('websites').where('id', website).first(), 'the website is gone').to.equal(undefined);
    expect(await deletions(), 'one deletion recorded').to.equal(1);
  });
});
