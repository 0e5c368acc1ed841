import { expect } from 'chai';
import fc from 'fast-check';
import { getWebsitePolicy } from '../../lib/websites/index.js';
import { useApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, formOf, redirectPaths, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';

// The platform's policy page: the effective rule per region with its reasons, and the editor of the website's rules.

async function signedIn(
  app: TestApp,
  language = 'en',
): Promise<{ client: Browser; webmasterId: number; websiteId: number }> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = new Browser(app.url, { headers: { 'accept-language': language } });
  await client.open('/platform/signin');
  const page = await client.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
  expect(redirectPaths(page)).to.deep.equal(['/platform/websites']);
  const { websiteId } = await createClientFixture(app.provider.runtime, webmaster.id, {
    regions: ['DE'],
    name: 'Policy Shop',
  });
  return { client, webmasterId: webmaster.id, websiteId };
}

const text = (page: Page): string => decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
/** The table row of a region, as text. */
const rowOf = (page: Page, region: string): string => {
  const row = [...page.html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((match) =>
      decodeHtml(match[1]!)
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' '),
    )
    .find((cells) => cells.includes(` ${region} `));
  if (!row) throw new Error(`no row for ${region}`);
  return row;
};

describe("webmasters platform: a website's policy", () => {
  const app = useApp({ env: { POLICY_PRESETS: 'fr,us-ms' } });

  it('is linked from the Settings section, leads back there, and shows each region with what applies and why', async () => {
    const { client, websiteId } = await signedIn(app);
    expect((await client.open(`/platform/websites/${websiteId}/settings`)).html).to.contain(
      `href="/platform/websites/${websiteId}/policy"`,
    );
    const page = await client.open(`/platform/websites/${websiteId}/policy`);
    expect(page.status).to.equal(200);
    expect(page.html).to.contain(`href="/platform/websites/${websiteId}/settings#policy"`);
    expect(text(page)).to.contain('Policy of Policy Shop').and.contain('Presets in force:').and.contain('( fr v1)');
    expect(rowOf(page, 'FR'))
      .to.contain('France')
      .and.contain('A double-anonymity method, offered first')
      .and.contain('At most 3600 seconds')
      .and.contain('France: SREN law');
    expect(rowOf(page, 'US-MS'))
      .to.contain('United States, Mississippi')
      .and.contain(' 21 ')
      .and.contain('Mississippi: SB 2346');
    expect(rowOf(page, 'DE')).to.contain('Germany').and.contain(' Yes ').and.contain("The operator's defaults");
  });

  it('saves rules that tighten, and shows them as the reason where they apply', async () => {
    const { client, webmasterId, websiteId } = await signedIn(app);
    await client.open(`/platform/websites/${websiteId}/policy`);
    const rules = [{ regions: ['FR'], challenges: ['eu_av', 'ticket'], minimumAssuranceLevel: 'ENHANCED' }];
    const saved = await client.post(`/platform/websites/${websiteId}/policy`, { rules: JSON.stringify(rules) });
    expect(redirectPaths(saved)).to.deep.equal([`/platform/websites/${websiteId}/policy`]);
    expect(text(saved)).to.contain('The rules were saved.');
    expect(rowOf(saved, 'FR'))
      .to.contain('Your rule 1')
      .and.contain('EU age-verification app, Ticket code')
      .and.contain('Enhanced');
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal(rules);
    // The change is in the website's audit trail: who, and the rules before and after.
    expect(text(await client.open(`/platform/websites/${websiteId}/activity`)))
      .to.contain('Policy rules changed')
      .and.contain('you, on the platform');
    const trail = (await (await client.request(`/platform/websites/${websiteId}/activity.jsonl`)).text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; actor: { type: string }; before: unknown; after: unknown });
    expect(trail.find((entry) => entry.action === 'policy.updated')).to.deep.include({
      actor: { type: 'webmaster', id: String(webmasterId) },
      before: { rules: [] },
      after: { rules },
    });
  });

  it('refuses a rule that loosens a preset, or text that is not JSON, as the API does, keeping what was typed and storing nothing', async () => {
    const { client, webmasterId, websiteId } = await signedIn(app);
    await client.open(`/platform/websites/${websiteId}/policy`);
    const loosening = JSON.stringify([{ regions: ['US-MS'], ageThreshold: 18 }]);
    const refused = await client.post(`/platform/websites/${websiteId}/policy`, { rules: loosening });
    expect(refused.status).to.equal(400);
    expect(text(refused))
      .to.contain('The rules were not saved.')
      .and.contain("Rule 1: ageThreshold would loosen the operator's rule in US-MS.");
    expect(refused.html).to.match(/id="policy-rules"[^>]*aria-invalid="true"/);
    expect(decodeHtml(refused.html)).to.contain(loosening);
    const broken = await client.post(`/platform/websites/${websiteId}/policy`, { rules: '[{"regions": ["FR"]' });
    expect(broken.status).to.equal(400);
    expect(text(broken)).to.contain('This is not valid JSON');
    const malformed = await client.post(`/platform/websites/${websiteId}/policy`, { rules: '[{"regions": ["fr"]}]' });
    expect(malformed.status).to.equal(400);
    expect(text(malformed))
      .to.contain('These rules do not have the expected form')
      .and.contain('Invalid rules[0].regions[0].');
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal([]);
  });

  it('edits the rules as a form by default, and the JSON editor shows the same rules', async () => {
    const { client, webmasterId, websiteId } = await signedIn(app);
    const page = await client.open(`/platform/websites/${websiteId}/policy`);
    expect(text(page)).to.contain('A new rule (rule 1): leave it empty to add none');
    const saved = await client.submit(formOf(page, { id: 'policy-form' }), {
      'rule-0-regions': 'fr, US-TX',
      'rule-0-ageThreshold': '21',
      'rule-0-challenges': ['eu_av', 'ticket'],
      'rule-0-minimumAssuranceLevel': 'ENHANCED',
      'rule-0-reuseMaxAgeSeconds': '3600',
      'rule-0-challengesUntil': 'ticket 2030-01-01',
    });
    expect(redirectPaths(saved)).to.deep.equal([`/platform/websites/${websiteId}/policy`]);
    expect(text(saved)).to.contain('The rules were saved.');
    const rule = {
      regions: ['FR', 'US-TX'],
      ageThreshold: 21,
      challenges: ['eu_av', 'ticket'],
      minimumAssuranceLevel: 'ENHANCED',
      reuseMaxAgeSeconds: 3600,
      challengesUntil: { ticket: '2030-01-01' },
    };
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal([rule]);
    // The form shows the rule as saved, a blank one to add, and the JSON editor the same rules.
    const form = formOf(saved, { id: 'policy-form' });
    expect(form.fields).to.include({
      'rule-0-regions': 'FR, US-TX',
      'rule-0-ageThreshold': '21',
      'rule-0-reuseMaxAgeSeconds': '3600',
      'rule-0-challengesUntil': 'ticket 2030-01-01',
      'rule-1-regions': '',
      'rules-shown': '2',
    });
    expect(saved.html).to.match(/id="rule-0-challenges-ticket" name="rule-0-challenges" value="ticket" checked/);
    expect(JSON.parse(formOf(saved, { button: 'Save the JSON' }).fields.rules!)).to.deep.equal([rule]);
    expect(rowOf(saved, 'US-TX')).to.contain('Your rule 1').and.contain(' 21 ');

    // Removed by its checkbox: no rule left.
    const removed = await client.submit(form, { 'rule-0-remove': 'true' });
    expect(text(removed)).to.contain('The rules were saved.');
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal([]);
  });

  it('lists every problem of the form at the top, in page order, each linked to its field, and saves nothing', async () => {
    const { client, webmasterId, websiteId } = await signedIn(app);
    const first = await client.submit(
      formOf(await client.open(`/platform/websites/${websiteId}/policy`), { id: 'policy-form' }),
      {
        'rule-0-regions': 'DE',
        'rule-0-ageThreshold': '19',
      },
    );
    const before = (await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules;
    expect(before).to.deep.equal([{ regions: ['DE'], ageThreshold: 19 }]);
    const refused = await client.submit(formOf(first, { id: 'policy-form' }), {
      'rule-0-regions': 'US-MS',
      'rule-1-regions': 'FR, QQ',
      'rule-1-ageThreshold': 'eighteen',
      'rule-1-reuseMaxAgeSeconds': '99999999999',
      'rule-1-challengesUntil': 'ticket 2026-02-30',
    });
    expect(refused.status).to.equal(400);
    const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(refused.html)![0];
    const links = [...summary.matchAll(/<a href="#([^"]+)">([^<]+)<\/a>/g)].map(([, id, message]) => [
      id,
      decodeHtml(message!),
    ]);
    expect(links).to.deep.equal([
      [
        'rule-0-ageThreshold',
        'Rule 1: “Age to prove” would loosen the operator’s rule in US-MS. Your rules may only make it stricter.',
      ],
      ['rule-1-regions', 'Rule 2: enter its regions, such as FR, US-TX or *, at most once each.'],
      ['rule-1-ageThreshold', 'Rule 2: the age must be a whole number from 13 to 25.'],
      ['rule-1-reuseMaxAgeSeconds', 'Rule 2: the reuse limit must be a whole number of seconds from 0 to 31536000.'],
      ['rule-1-challengesUntil', 'Rule 2: write each method’s code and a real day, such as credit_card 2025-01-09.'],
    ]);
    // Each field says it too, and keeps what was typed.
    for (const [id] of links) {
      expect(refused.html).to.match(
        new RegExp(`id="${id!}"[^>]*aria-describedby="${id!}-hint ${id!}-error" aria-invalid="true"`),
      );
      expect(refused.html).to.contain(`<p class="error" id="${id!}-error">`);
    }
    expect(formOf(refused, { id: 'policy-form' }).fields).to.include({
      'rule-1-ageThreshold': 'eighteen',
      'rule-1-regions': 'FR, QQ',
    });
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal(before);
  });

  it('explains a rule that would change nothing instead of saving it, and refuses a form that came back cut short', async () => {
    const { client, webmasterId, websiteId } = await signedIn(app);
    const page = await client.open(`/platform/websites/${websiteId}/policy`);
    const idle = await client.submit(formOf(page, { id: 'policy-form' }), { 'rule-0-regions': 'FR' });
    expect(idle.status).to.equal(400);
    expect(text(idle)).to.contain(
      'Rule 1 would change nothing: it demands nothing, and “not required” never lifts a requirement set by the operator or your website’s regions. Add a demand, or remove the rule.',
    );
    expect(idle.html).to.contain('<a href="#rule-0-regions">');
    const cut = await client.post(`/platform/websites/${websiteId}/policy`, {
      'rule-0-regions': 'FR',
      'rule-0-ageThreshold': '21',
    });
    expect(cut.status).to.equal(400);
    expect(text(cut)).to.contain('The form came back incomplete: nothing was saved.');
    expect((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules).to.deep.equal([]);
  });

  it('answers any almost-valid form with a page, never a 5xx, and changes nothing when it refuses', async function () {
    this.timeout(120_000);
    const { client, webmasterId, websiteId } = await signedIn(app);
    await client.open(`/platform/websites/${websiteId}/policy`);
    const rulesNow = async () =>
      JSON.stringify((await getWebsitePolicy(app.provider.runtime, webmasterId, websiteId)).rules);
    const value = fc.constantFrom(
      '',
      ' ',
      'FR',
      'fr, us-tx',
      '*',
      'QQ',
      'US-MS',
      '21',
      '13',
      '-1',
      '1e3',
      '99999999999',
      'ENHANCED',
      'strict',
      'ticket',
      'nope',
      'ticket 2026-02-30',
      'credit_card 2024-01-01',
      'ticket: 2030-01-01, x',
      'true',
      '0',
      '2',
      'x'.repeat(300),
    );
    const name = fc.oneof(
      fc
        .tuple(
          fc.integer({ min: 0, max: 3 }),
          fc.constantFrom(
            'regions',
            'required',
            'ageThreshold',
            'challenges',
            'minimumAssuranceLevel',
            'estimationBuffer',
            'reuseMaxAgeSeconds',
            'requireDoubleAnonymity',
            'challengesUntil',
            'remove',
          ),
        )
        .map(([slot, field]) => `rule-${slot}-${field}`),
      fc.constantFrom('rules-shown', 'rules', 'editor'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(name, fc.oneof(value, fc.array(value, { maxLength: 3 })), { maxKeys: 12 }),
        async (body) => {
          const before = await rulesNow();
          const page = await client.post(`/platform/websites/${websiteId}/policy`, body);
          expect(page.status, JSON.stringify(body)).to.be.oneOf([200, 400]);
          if (page.status === 400) expect(await rulesNow(), JSON.stringify(body)).to.equal(before);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("speaks the webmaster's language", async () => {
    const { client, websiteId } = await signedIn(app, 'fr');
    const page = await client.open(`/platform/websites/${websiteId}/policy`);
    expect(text(page))
      .to.contain('Politique de Policy Shop')
      .and.contain('Préréglages en vigueur')
      .and.contain('Partout ailleurs');
    const refused = await client.post(`/platform/websites/${websiteId}/policy`, {
      rules: '[{"regions": ["FR"], "reuseMaxAgeSeconds": 7200}]',
    });
    expect(text(refused)).to.contain("Règle 1 : reuseMaxAgeSeconds assouplirait la règle de l'opérateur en FR.");
    // The form's labels and its every error, in French too.
    expect(text(page)).to.contain('Une nouvelle règle (règle 1)').and.contain('Âge à prouver');
    const form = await client.submit(formOf(page, { id: 'policy-form' }), {
      'rule-0-regions': 'FR',
      'rule-0-ageThreshold': 'dix-huit',
    });
    expect(form.status).to.equal(400);
    expect(text(form))
      .to.contain('Il y a un problème')
      .and.contain('Règle 1 : l’âge doit être un nombre entier de 13 à 25.');
  });

  it("refuses a form without its CSRF token, and another webmaster's website, changing nothing", async () => {
    const owner = await signedIn(app);
    await owner.client.open(`/platform/websites/${owner.websiteId}/policy`);
    const rules = JSON.stringify([{ regions: ['FR'], ageThreshold: 21 }]);
    expect(
      (await owner.client.post(`/platform/websites/${owner.websiteId}/policy`, { rules }, { csrf: null })).status,
    ).to.equal(403);
    const intruder = await signedIn(app);
    await intruder.client.open('/platform/websites');
    expect((await intruder.client.open(`/platform/websites/${owner.websiteId}/policy`)).status).to.equal(401);
    const attempt = await intruder.client.post(`/platform/websites/${owner.websiteId}/policy`, { rules });
    expect(attempt.status).to.equal(401);
    expect(attempt.html).to.not.contain('Policy Shop');
    expect((await getWebsitePolicy(app.provider.runtime, owner.webmasterId, owner.websiteId)).rules).to.deep.equal([]);
  });
});
