import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createVisitorAccount } from '../../lib/visitors/visitor-accounts.js';
import { useApp } from '../helpers/app.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { accept, callbackOf, expectPage, submitSandbox } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';

const PASSWORD = 'correct horse battery';
const newUsername = (): string => `visitor.${randomBytes(4).toString('hex')}`;

describe('security: what registration and "save result" tell a stranger', () => {
  const app = useApp();
  let client: ClientFixture;
  before(async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie'],
    });
  });

  // What webmaster registration tells a stranger (the same answer for a known address): test/platform/registration.test.ts.

  async function resultPage(browser: Browser): Promise<Page> {
    const sandbox = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const result = expectPage(await submitSandbox(browser, sandbox, { level: 'STANDARD' }));
    expect(result.url.pathname).to.match(/\/result$/);
    return result;
  }

  it('gives one verification to at most one account: of 4 parallel saves one wins, the others see "already saved"', async () => {
    const browser = new Browser(app.url);
    const save = formOf(await resultPage(browser), { action: '/result/save' });
    const usernames = [newUsername(), newUsername(), newUsername(), newUsername()];
    const answers = await Promise.all(
      usernames.map((username) =>
        browser.submit(save, { username, password: PASSWORD, password_confirmation: PASSWORD }),
      ),
    );

    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status < 500),
      statuses.join(),
    ).to.equal(true);
    const handedOver = answers.filter((answer) => answer.location !== undefined);
    expect(handedOver).to.have.length(1);
    callbackOf(handedOver[0]!, client);
    for (const loser of answers.filter((answer) => answer.location === undefined)) {
      expect(loser.status).to.equal(409);
      expect(loser.html).to.contain('This result is already saved to an account.');
    }
    const accounts = await app.provider.db('visitor_accounts').whereIn('username', usernames).select('id');
    expect(accounts).to.have.length(1);
    expect(
      await app.provider.db('age_proofs').where('subject', `acct:${accounts[0].id}`).select('subject'),
    ).to.have.length(1);
  });

  it('answers "username taken" at most 5 times per verification; then every name waits, a free one too', async () => {
    const taken = newUsername();
    await createVisitorAccount(app.provider.runtime.db, { username: taken, password: PASSWORD });
    const browser = new Browser(app.url);
    const save = formOf(await resultPage(browser), { action: '/result/save' });
    const attempt = (username: string) =>
      browser.submit(save, { username, password: PASSWORD, password_confirmation: PASSWORD });
    for (let n = 1; n <= 5; n++) {
      const page = await attempt(taken);
      expect(page.status, `probe ${n}`).to.equal(409);
      expect(page.html).to.contain('already taken');
    }
    expect((await attempt(taken)).status).to.equal(429);
    const free = await attempt(newUsername());
    expect(free.status).to.equal(429);
    expect(free.html).to.contain('Too many attempts');
  });
});
