import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, linkWithText, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { packageRoot } from '../../lib/paths.js';

const run = promisify(execFile);

/** The example wallet as an operator runs it (docs/eu-av.md): a process of its own, over HTTP only. */
async function wallet(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(packageRoot, 'examples/eu-av-wallet/main.ts'), ...args],
      { cwd: packageRoot },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('examples/eu-av-wallet: the test wallet an operator points at their own server, on a LIVE client', function () {
  this.timeout(120_000);
  let dir: string;
  let app: TestApp;
  let fixture: ClientFixture;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'eu-av-wallet-'));
    const made = await wallet('issuer', '--dir', dir);
    expect(made.stdout).to.include(`EU_AV_TRUSTED_ISSUERS=${join(dir, 'root.pem')}`);
    app = await startTestApp({ env: { EU_AV_TRUSTED_ISSUERS: join(dir, 'root.pem') } });
    fixture = await createClientFixture(app.provider.runtime, (await createWebmasterFixture(app.provider.runtime)).id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function openChallenge(): Promise<{ browser: Browser; page: Page; link: string }> {
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const query = new URLSearchParams({
      client_id: fixture.clientId,
      redirect_uri: fixture.redirectUri,
      response_type: 'code',
      scope: 'read',
      state: 's',
      challenges: 'eu_av',
    });
    const prompt = await browser.open(new URL(`/v1/oauth2/checker?${query.toString()}`, app.url), {
      stopAt: fixture.redirectUri,
    });
    const page = await browser.submit(
      formOf(prompt, { action: '/consent' }),
      {},
      { name: 'decision', value: 'accept' },
      { stopAt: fixture.redirectUri },
    );
    return { browser, page, link: linkWithText(page, 'Open my app on this device').href };
  }

  it('answers the av:// link; the address it prints, opened in the browser, ends the check with a pass', async () => {
    const { browser, link } = await openChallenge();
    const answered = await wallet('answer', link, '--dir', dir);
    expect(answered.code).to.equal(0);
    const back = /open this address in the browser that shows the check to finish it:\n {2}(\S+)/.exec(
      answered.stdout,
    )?.[1];
    expect(back, answered.stdout).to.be.a('string');
    const result = await browser.open(back!, { stopAt: fixture.redirectUri });
    expect(result.url.pathname).to.match(/\/result$/);
  });

  it('answers with the PID in the vp_token[<id>] form shape; an under-age answer fails; a decline cancels', async () => {
    const pid = await openChallenge();
    const passed = await wallet('answer', pid.link, '--dir', dir, '--pid', '--form');
    expect(passed.code).to.equal(0);
    expect(
      (await pid.browser.open(/\n {2}(http\S+)/.exec(passed.stdout)![1]!, { stopAt: fixture.redirectUri })).url
        .pathname,
    ).to.match(/\/result$/);

    const under = await openChallenge();
    const refused = await wallet('answer', under.link, '--dir', dir, '--under');
    expect(refused.code).to.equal(0);
    const back = /\n {2}(http\S+)/.exec(refused.stdout)![1]!;
    expect((await under.browser.open(back, { stopAt: fixture.redirectUri })).url.searchParams.get('notice')).to.equal(
      'wallet_under_age',
    );

    const declined = await openChallenge();
    expect((await wallet('answer', declined.link, '--dir', dir, '--decline')).code).to.equal(0);
  });

  it('refuses a link whose client_id does not name its response_uri, without posting anything', async () => {
    const { link } = await openChallenge();
    const forged = new URL(link);
    forged.searchParams.set('client_id', 'redirect_uri:https://elsewhere.example/response');
    const refused = await wallet('answer', forged.href, '--dir', dir);
    expect(refused.code).to.not.equal(0);
  });
});
