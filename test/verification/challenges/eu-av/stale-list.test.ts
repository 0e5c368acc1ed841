import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLogger } from '../../../../lib/log.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { Browser, formOf } from '../../../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { authorizationUrl } from '../../../helpers/relying-party.js';

const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;

/**
 * eu_av trusting the Commission's own test list (fixtures/, NextUpdate 2025-12-29T01:00:00Z) while refreshes fail:
 * within the grace it is offered; past NextUpdate and the grace it is not, and the website gets what it gets for any
 * challenge this service does not run; the log, /readyz and the metric say why.
 */
describe('eu_av: a trusted list past its NextUpdate and the grace', function () {
  this.timeout(120_000);
  let now: Date;
  let app: TestApp;
  let operations: Server;
  let operationsUrl: string;
  let client: ClientFixture;
  const lines: string[] = [];

  before(async () => {
    now = new Date('2025-12-30T00:00:00Z');
    app = await startTestApp({
      clock: { now: () => now },
      logger: createLogger('debug', (line) => lines.push(line)),
      env: {
        EU_AV_TRUSTED_LIST: fixture('ec-av-test-trusted-list.xml'),
        EU_AV_TRUSTED_LIST_SIGNER: fixture('ec-test-lotl-signer-1.pem'),
        EU_AV_TRUSTED_LIST_GRACE_SECONDS: '86400',
      },
    });
    const handle = app.provider.operations.callback();
    operations = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolve) => operations.listen(0, '127.0.0.1', resolve));
    operationsUrl = `http://127.0.0.1:${(operations.address() as AddressInfo).port}`;
    client = await createClientFixture(app.provider.runtime, (await createWebmasterFixture(app.provider.runtime)).id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });
  });
  after(async () => {
    await new Promise<void>((resolve) => operations?.close(() => resolve()));
    await app?.close();
  });

  /** Where a LIVE visitor asking for `challenges` lands once the prompt is accepted: the path, the status and what the page or redirect says. */
  async function landing(
    challenges: string,
  ): Promise<{ path: string; status: number; error: string | null; text: string }> {
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const prompt = await browser.open(
      new URL(authorizationUrl(app.url, client, 'checker', { state: 'rp-state', challenges })),
      { stopAt: client.redirectUri },
    );
    const page =
      prompt.html.includes('action="/consent') || /action="[^"]*consent/.test(prompt.html)
        ? await browser.submit(
            formOf(prompt, { action: '/consent' }),
            {},
            { name: 'decision', value: 'accept' },
            { stopAt: client.redirectUri },
          )
        : prompt;
    const uid = /\/interaction\/([^/]+)/.exec(page.url.pathname)?.[1] ?? '';
    return {
      path: page.url.pathname.replace(uid, ':uid'),
      status: page.status,
      error: page.url.searchParams.get('error'),
      text: page.html
        .replace(new RegExp(uid, 'g'), ':uid')
        .replace(/name="_csrf" value="[^"]*"/g, '')
        .replace(`<dd>${challenges}</dd>`, '<dd>:challenges</dd>'),
    };
  }
  const metric = async (): Promise<string> =>
    /age_provider_challenge_available\{challenge="eu_av"\} (\d)/.exec(
      await (await fetch(`${operationsUrl}/metrics`)).text(),
    )?.[1] ?? 'absent';
  const readyz = async (): Promise<Record<string, unknown>> =>
    (
      (await (await fetch(`${app.url}/readyz`)).json()) as {
        detail: { eu_av: { trusted_list: Record<string, unknown> } };
      }
    ).detail.eu_av.trusted_list;

  it('within the grace the list is used and eu_av offered; past it, eu_av is not offered, as a challenge this service does not run, and the log, /readyz and the metric say why', async () => {
    expect(await readyz()).to.include({ outcome: 'ok', anchors: 4, next_update: '2025-12-29T01:00:00.000Z' });
    expect(await metric()).to.equal('1');
    expect((await landing('eu_av')).path).to.match(/\/challenge\/eu_av\/start$/);

    now = new Date('2025-12-30T01:00:01Z');
    const stale = await readyz();
    expect(stale).to.include({ outcome: 'failed', stale: true });
    expect(stale['problem']).to.match(
      /past its next update \(2025-12-29T01:00:00.000Z\) and the grace: not used, eu_av is not offered/,
    );
    expect(await metric()).to.equal('0');
    expect(lines.some((line) => line.includes('eu_av trusted list past its next update and the grace'))).to.equal(true);
    const refused = await landing('eu_av');
    expect(refused.path).to.not.match(/eu_av/);
    // The same answer as for a challenge the operator never configured (AgeKey here).
    const unconfigured = await landing('agekey');
    expect(refused).to.deep.equal(unconfigured);
    expect(refused).to.include({ status: 503 });
    expect(refused.text).to.include('temporarily_unavailable');
  });
});
