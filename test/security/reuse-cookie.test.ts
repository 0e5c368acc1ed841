import { expect } from 'chai';
import type { TestApp } from '../helpers/app.js';
import { Browser, linkWithText, type Page } from '../helpers/browser.js';
import { startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import { accept, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';

const VISITOR_COOKIES = ['ap_visitor', 'ap_visitor.sig'];
const INTERACTION_PATH = '/v1/oauth2/interaction';

describe('security: the anonymous reuse cookie rotates when a proof is attached', () => {
  let app: TestApp;
  let client: ClientFixture;
  before(async () => {
    ({ app, client } = await startAppWithClient({ environment: 'TEST', challenges: ['selfie', 'ticket'] }));
  });
  after(() => app.close());

  const choice = async (browser: Browser): Promise<Page> =>
    expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));

  async function passSelfieAndContinue(browser: Browser): Promise<void> {
    const sandbox = await browser.open(linkWithText(await choice(browser), 'Selfie'));
    const result = expectPage(await submitSandbox(browser, sandbox, { level: 'STANDARD' }));
    callbackOf(await continueWithoutSaving(browser, result), client);
  }

  it("a cookie planted before the victim's proof never reaches it; the victim's own browser still reuses it", async () => {
    // The attacker gets a validly signed visitor cookie of their own, then keeps it but not its proof.
    const attacker = new Browser(app.url);
    await passSelfieAndContinue(attacker);
    const planted = attacker.cookies.get('ap_visitor')!;
    await app.provider.db('age_proofs').where('subject', `anon:${planted}`).delete();

    const victim = new Browser(app.url);
    for (const name of VISITOR_COOKIES)
      victim.cookies.set(name, attacker.cookies.get(name)!, app.url, INTERACTION_PATH);
    await passSelfieAndContinue(victim);
    expect(victim.cookies.get('ap_visitor')).to.be.a('string').and.not.equal(planted);

    expect((await choice(attacker)).html).not.to.contain('You already proved your age');
    expect((await choice(victim)).html).to.contain('You already proved your age');
  });
});
