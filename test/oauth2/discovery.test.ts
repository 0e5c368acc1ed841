import { expect } from 'chai';
import * as client from 'openid-client';
import { useOAuth2App } from './helpers/oauth2.js';

// docs/integration.md tells integrators to use OAuth 2.0 discovery with algorithm 'oauth2': this is why, with the
// client library most Node.js integrators reach for.
describe('oauth2: discovery as docs/integration.md describes it (openid-client)', () => {
  const harness = useOAuth2App();

  it("finds every endpoint with algorithm: 'oauth2' (RFC 8414), and nothing with OpenID discovery", async () => {
    const issuer = new URL(harness.app.url);
    const fixture = await harness.client();
    const configuration = await client.discovery(issuer, fixture.clientId, fixture.clientSecret, undefined, {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    const metadata = configuration.serverMetadata();
    expect(metadata.token_endpoint).to.equal(`${harness.app.url}/v1/oauth2/token`);
    expect(metadata.authorization_endpoint).to.equal(`${harness.app.url}/v1/oauth2/checker`);
    expect(metadata.introspection_endpoint).to.equal(`${harness.app.url}/v1/oauth2/token/introspection`);

    let refused: unknown;
    try {
      await client.discovery(issuer, fixture.clientId, fixture.clientSecret, undefined, {
        execute: [client.allowInsecureRequests],
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(Error);
  });
});
