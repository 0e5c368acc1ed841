import { expect } from 'chai';
import { authorize, readResources, requestToken, type TokenBody, useOAuth2App } from './helpers/oauth2.js';

describe('oauth2: bearer secrets at rest', () => {
  const harness = useOAuth2App();

  it('stores neither the authorization code nor the access token in clear, and both still work', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const storedAfterCode = JSON.stringify(await harness.app.provider.db('oidc_payloads').select());
    expect(storedAfterCode).not.to.include(code);

    const response = await requestToken(harness.app, { code, client });
    expect(response.status).to.equal(200);
    const token = (await response.json()) as TokenBody;
    const stored = JSON.stringify(await harness.app.provider.db('oidc_payloads').select());
    expect(stored).not.to.include(token.access_token);
    expect(stored).not.to.include(code);

    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
    const replay = await requestToken(harness.app, { code, client });
    expect(replay.status, 'the code is still single-use').to.equal(400);
    expect((await readResources(harness.app, token.access_token)).status, 'replay revoked the token').to.equal(401);
  });
});
