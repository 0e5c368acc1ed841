import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import type { Adapter } from 'oidc-provider';
import { authorize, readResources, requestToken, useOAuth2App } from './helpers/oauth2.js';

/** Slows the authorization codes' storage reads, widening the window between "found unused" and "consumed". */
function injectLatency(adapter: Adapter, ms: number): () => void {
  const find = adapter.find.bind(adapter);
  adapter.find = async (id) => {
    const found = await find(id);
    await delay(ms);
    return found;
  };
  return () => {
    adapter.find = find;
  };
}

describe('oauth2: concurrent redemption of one code', () => {
  const harness = useOAuth2App();

  it('gives exactly one token to 20 simultaneous token requests with the same code', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const restore = injectLatency(harness.app.provider.provider.AuthorizationCode.adapter, 500);
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => requestToken(harness.app, { code, client })),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).to.have.length(1);
      const failures = await Promise.all(
        responses.filter((response) => response.status !== 200).map((response) => response.json()),
      );
      expect(failures).to.have.length(19);
      for (const failure of failures) expect(failure).to.include({ error: 'invalid_grant' });
    } finally {
      restore();
    }
  });

  it("revokes the winner's token too: after 20 parallel redemptions Resources refuses it, every round", async () => {
    const client = await harness.client();
    for (let round = 0; round < 10; round += 1) {
      const { code } = await authorize(harness.app, client);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => requestToken(harness.app, { code, client })),
      );
      const winners = responses.filter((response) => response.status === 200);
      expect(winners.length, `round ${round}: tokens issued`).to.be.at.most(1);
      await Promise.all(
        responses.filter((response) => response.status !== 200).map((response) => response.arrayBuffer()),
      );
      for (const winner of winners) {
        const { access_token: accessToken } = (await winner.json()) as { access_token: string };
        const resources = await readResources(harness.app, accessToken);
        expect(resources.status, `round ${round}: Resources with the winner's token`).to.equal(401);
        expect(await resources.json()).to.include({ error: 'invalid_token' });
      }
    }
  });
});
