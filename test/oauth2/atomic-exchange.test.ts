import { expect } from 'chai';
import { authorize, type OAuth2TestApp, requestToken, useOAuth2App } from './helpers/oauth2.js';

/**
 * A database failure on the access token's write, injected by a trigger while `fail_token_writes` holds a row:
 * it fails the statement itself, the way a lost connection or a timeout would.
 */
async function injectTokenWriteFailure(harness: OAuth2TestApp): Promise<{ stop(): Promise<void> }> {
  const { db } = harness.app.provider;
  await db.raw('CREATE TABLE fail_token_writes (reason text)');
  await db.raw(`CREATE FUNCTION fail_token_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.type = 'AccessToken' AND EXISTS (SELECT 1 FROM fail_token_writes) THEN RAISE EXCEPTION 'injected token write failure'; END IF;
      RETURN NEW;
    END $$`);
  await db.raw(
    'CREATE TRIGGER fail_token_write BEFORE INSERT ON oidc_payloads FOR EACH ROW EXECUTE FUNCTION fail_token_write()',
  );
  await db('fail_token_writes').insert({ reason: 'test' });
  return {
    async stop() {
      await db.raw('DROP TRIGGER fail_token_write ON oidc_payloads');
      await db.raw('DROP FUNCTION fail_token_write()');
      await db.raw('DROP TABLE fail_token_writes');
    },
  };
}

describe('oauth2: the code exchange commits the redemption and the token together', () => {
  const harness = useOAuth2App();

  it('leaves the code redeemable when writing the access token fails, so the website can retry it', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const failure = await injectTokenWriteFailure(harness);
    let failed: Response;
    try {
      failed = await requestToken(harness.app, { code, client });
    } finally {
      await failure.stop();
    }
    expect(failed.status).to.equal(500);
    expect(await failed.json()).to.include({ error: 'server_error' });

    const retried = await requestToken(harness.app, { code, client });
    expect(retried.status).to.equal(200);
    const { access_token: accessToken } = (await retried.json()) as { access_token: string };
    const resources = await fetch(`${harness.app.url}/v1/oauth2/resources`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(resources.status).to.equal(200);
  });

  it('still refuses a code redeemed once, and revokes the token issued with it', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const first = await requestToken(harness.app, { code, client });
    expect(first.status).to.equal(200);
    const { access_token: accessToken } = (await first.json()) as { access_token: string };
    const second = await requestToken(harness.app, { code, client });
    expect(second.status).to.equal(400);
    expect(await second.json()).to.include({ error: 'invalid_grant' });
    const resources = await fetch(`${harness.app.url}/v1/oauth2/resources`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(resources.status).to.equal(401);
  });
});
