import { expect } from 'chai';
import { readResources, requestToken, startOAuth2App, useOAuth2App } from './helpers/oauth2.js';

describe('oauth2: rate limit on the back channel', () => {
  const harness = useOAuth2App({ OAUTH2_RATE_LIMIT_PER_IP: '300' });

  it('answers 429 JSON with Retry-After once one address has spent OAUTH2_RATE_LIMIT_PER_IP token/resources calls in a minute', async () => {
    const client = await harness.client();
    const statuses: number[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => readResources(harness.app, `guess${batch}x${i}`)),
      );
      statuses.push(...responses.map((response) => response.status));
    }
    expect(statuses.filter((status) => status === 401)).to.have.length(300);

    const resources = await readResources(harness.app, 'one-more-guess');
    expect(resources.status).to.equal(429);
    expect(Number(resources.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await resources.json()).to.include({ error: 'too_many_requests' });

    const token = await requestToken(harness.app, {
      code: 'guessed',
      client: { ...client, clientSecret: 'guessed' },
      path: '/api/oauth2/token',
    });
    expect(token.status, 'the legacy token path shares the limit').to.equal(429);
    expect(token.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('refuses a malformed OAUTH2_RATE_LIMIT_PER_IP at start-up, naming it', async () => {
    try {
      await startOAuth2App({ OAUTH2_RATE_LIMIT_PER_IP: 'lots' });
      expect.fail('started');
    } catch (error) {
      expect((error as Error).message).to.contain('OAUTH2_RATE_LIMIT_PER_IP');
    }
  });
});
