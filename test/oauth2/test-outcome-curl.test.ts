import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { useApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';

const run = promisify(execFile);
const CURL = '/usr/bin/curl';

/** The last address curl reached (or tried to reach), and its status, as `-w '%{url_effective} %{http_code}'` prints them. */
async function curl(args: string[]): Promise<string> {
  try {
    return (await run(CURL, args)).stdout;
  } catch (error) {
    // Nothing listens at the website's callback in a test: curl fails there (exit 7) after printing where it was.
    return String((error as { stdout?: string }).stdout);
  }
}

describe('the test_outcome shortcut with a plain HTTP client (curl), as docs/integration.md says', () => {
  const app = useApp();

  it('reaches the redirect URI with a code when curl keeps cookies (-c /dev/null), and not without them', async function () {
    if (!existsSync(CURL)) this.skip();
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const client = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
    const url = `${app.url}/v1/oauth2/checker?${new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      scope: 'read',
      state: 'xyz',
      test_outcome: 'pass',
    }).toString()}`;
    const documented = await curl(['-sL', '-c', '/dev/null', '-o', '/dev/null', '-w', '%{url_effective}', url]);
    const reached = new URL(documented);
    expect(`${reached.origin}${reached.pathname}`).to.equal(client.redirectUri);
    expect(reached.searchParams.get('state')).to.equal('xyz');
    expect(reached.searchParams.get('code')).to.be.a('string').and.not.equal('');
    // Without its cookie engine curl cannot follow the interaction the provider binds to a cookie.
    const cookieless = await curl(['-sL', '-o', '/dev/null', '-w', '%{url_effective} %{http_code}', url]);
    expect(cookieless).to.match(/\/v1\/oauth2\/interaction\/\S+ 400$/);
  });
});
