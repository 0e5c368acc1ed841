import { expect } from 'chai';
import type { TestApp } from '../../../../helpers/app.js';
import type { ClientFixture } from '../../../../helpers/fixtures.js';
import { Browser, formOf, locationOf, type Page } from '../../../../helpers/browser.js';
import { redeem } from '../../../../helpers/relying-party.js';
import { accept } from '../../../../helpers/visitor.js';
import { authorizationUrl } from '../../../../helpers/relying-party.js';

/** Starts a checker authorization, accepts the prompt and lands on the challenge named in `challenges`. */
export async function startChallenge(
  app: TestApp,
  client: ClientFixture,
  challenge: string,
): Promise<{ visitor: Browser; uid: string; page: Page }> {
  const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' } });
  const prompt = await visitor.open(authorizationUrl('', client, 'checker', { state: 'st-1', challenges: challenge }));
  expect(prompt.status, 'the prompt page').to.equal(200);
  const consent = formOf(prompt, { action: '/consent' });
  const uid = /\/v1\/oauth2\/interaction\/([^/]+)\/consent$/.exec(consent.action.pathname)?.[1];
  if (!uid) throw new Error('no interaction on the prompt page');
  const page = await accept(visitor, prompt);
  return { visitor, uid, page };
}

/** From the result page: continue to the website, exchange the code, read Resources. */
export async function resourcesAfterPass(
  app: TestApp,
  client: ClientFixture,
  visitor: Browser,
  uid: string,
): Promise<Record<string, unknown>> {
  const back = await visitor.post(`/v1/oauth2/interaction/${uid}/result/continue`, {}, { stopAt: client.redirectUri });
  const target = locationOf(back);
  expect(target.href.startsWith(client.redirectUri), `a redirect to the website, not ${target.href}`).to.equal(true);
  const code = target.searchParams.get('code');
  expect(code, 'a code for the website').to.be.a('string');
  return redeem(app, client, code!);
}
