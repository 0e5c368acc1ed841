import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { endInteraction, InteractionAlreadyEnded } from '../../lib/oauth2/flow-storage.js';
import { newGrant } from '../../lib/oauth2/grants.js';
import { flowEndingInsert } from '../../lib/verification/flow-endings.js';
import { Browser, locationOf } from '../helpers/browser.js';
import { authorizationUrl, authorize, completeInteraction, interactionUid, useOAuth2App } from './helpers/oauth2.js';

/**
 * How an interaction ends and resumes (lib/oauth2/flow-storage.ts): the grant, its verification's link and the result are
 * written by one statement, all or none of them; the resume takes the interaction, so it resumes once.
 */
describe('oauth2: the end and the resume of an interaction', () => {
  const harness = useOAuth2App();

  it('writes neither the grant nor the result when the verification is already linked to another grant', async () => {
    const client = await harness.client();
    const { db } = harness.app.provider.runtime;
    await authorize(harness.app, client);
    const linked = await db('verifications')
      .where({ website_id: client.websiteId })
      .whereNotNull('grant_id')
      .first<{ uid: string }>();
    const browser = new Browser(harness.app.url);
    const uid = interactionUid(await browser.request(authorizationUrl('', client)));
    const grantsBefore = await db('oidc_payloads').where({ type: 'Grant' }).count<{ count: number }[]>({ count: '*' });

    const req = new IncomingMessage(new Socket());
    req.url = `/v1/oauth2/interaction/${uid}`;
    req.headers = {
      cookie: browser.cookies.header(new URL(req.url, harness.app.url)),
      host: new URL(harness.app.url).host,
    };
    const { provider, runtime } = harness.app.provider;
    const failure = await endInteraction(runtime.db, runtime.clock, {
      interaction: await provider.interactionDetails(req, new ServerResponse(req)),
      grant: {
        model: newGrant(provider, { accountId: 'visitor_replay', clientId: client.clientId }),
        verification: { link: linked!.uid },
      },
      result: (grantId) => ({ login: { accountId: 'visitor_replay' }, consent: { grantId } }),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );

    // The refusal the pages answer by sending a repeated submit where the first one went (outcome.ts).
    expect(failure).to.be.instanceOf(InteractionAlreadyEnded);
    expect(String(failure)).to.match(/missing or already linked/);
    const grantsAfter = await db('oidc_payloads').where({ type: 'Grant' }).count<{ count: number }[]>({ count: '*' });
    expect(grantsAfter[0]!.count, 'grants').to.equal(grantsBefore[0]!.count);
    const interaction = await db('oidc_payloads')
      .where({ type: 'Interaction', id: uid })
      .first<{ payload: { result?: unknown } }>();
    expect(interaction?.payload.result, 'the interaction has no result').to.equal(undefined);
  });

  it('records an ending once when two submits loaded the interaction before either ended it (a double Cancel)', async () => {
    const client = await harness.client();
    const { provider, runtime } = harness.app.provider;
    const browser = new Browser(harness.app.url);
    const uid = interactionUid(await browser.request(authorizationUrl('', client)));
    const loaded = () => {
      const req = new IncomingMessage(new Socket());
      req.url = `/v1/oauth2/interaction/${uid}`;
      req.headers = {
        cookie: browser.cookies.header(new URL(req.url, harness.app.url)),
        host: new URL(harness.app.url).host,
      };
      return provider.interactionDetails(req, new ServerResponse(req));
    };
    // Both read the interaction unended, as two requests racing past the check that sends a repeat away.
    const [first, second] = await Promise.all([loaded(), loaded()]);
    const end = (interaction: typeof first) =>
      endInteraction(runtime.db, runtime.clock, {
        interaction,
        result: () => ({ error: 'access_denied', error_description: 'the visitor cancelled the verification' }),
        ending: flowEndingInsert(runtime.db, uid, {
          websiteId: client.websiteId,
          environment: 'TEST',
          clientId: client.clientId,
          outcome: 'abandoned',
          challenge: null,
          startedAt: runtime.clock.now(),
          endedAt: runtime.clock.now(),
          policy: [],
        }),
      }).then(
        () => 'ended',
        (error: unknown) => (error instanceof InteractionAlreadyEnded ? 'repeat' : error),
      );
    expect(await Promise.all([end(first), end(second)])).to.have.members(['ended', 'repeat']);
    const endings = await runtime.db('flow_endings').where({ website_id: client.websiteId }).select('outcome');
    expect(endings).to.deep.equal([{ outcome: 'abandoned' }]);
  });

  it('resumes an interaction once: of 10 simultaneous resumes exactly one reaches the website with a code', async () => {
    const client = await harness.client();
    const browser = new Browser(harness.app.url);
    const uid = interactionUid(await browser.request(authorizationUrl('', client)));
    const returnTo = await completeInteraction(harness.app, browser, uid, client);

    // Every resume waits after its read of the interaction: a read that did not take it would let all ten through.
    const { adapter } = harness.app.provider.provider.Interaction;
    const find = adapter.find.bind(adapter);
    adapter.find = async (id) => {
      const found = await find(id);
      await delay(200);
      return found;
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => browser.request(returnTo))).finally(() => {
      adapter.find = find;
    });
    const codes = answers.filter((answer) => answer.status === 303 && locationOf(answer).searchParams.has('code'));
    expect(codes, answers.map((answer) => answer.status).join(' ')).to.have.length(1);
    expect(locationOf(codes[0]!).href.startsWith(client.redirectUri)).to.equal(true);
  });
});
