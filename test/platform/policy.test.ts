import { expect } from 'chai';
import { getWebsitePolicy } from '../../lib/websites/index.js';
import { useApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, redirectPaths, type Page } from '../helpers/browser.js';
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
