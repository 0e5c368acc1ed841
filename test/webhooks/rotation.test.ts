import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, formOf, type Page } from '../helpers/browser.js';
import { TEST_ORIGIN } from '../helpers/fixtures.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { expectError, request, type ApiClient, type ApiResponse } from '../external/api.js';
import { MovableClock } from '../oauth2/helpers/clock.js';
import { createApiKey } from '../../lib/webmasters/api-tokens.js';
import { LOCAL_RECEIVERS, register, setUp, verified, type CreatedWebhook, type Payload } from './helpers.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';

interface Rotated extends CreatedWebhook {
  previousSecretExpiresAt: string | null;
}

const HOUR_S = 3600;

/** Whether a receiver holding only `secret` accepts the request (the Standard Webhooks library, not our signing code). */
const verifies = (secret: string, received: Received): boolean => {
  try {
    verified(secret, received);
    return true;
  } catch {
    return false;
  }
};

/** The signatures of the `webhook-signature` header, one per secret that signed. */
const signaturesOf = (received: Received): string[] => String(received.headers['webhook-signature']).split(' ');

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhooks: rotating the signing secret with an overlap', function () {
  this.timeout(120_000);
  const clock = new MovableClock();
  let app: TestApp;
  let receiver: Receiver;
  let setup: Awaited<ReturnType<typeof setUp>>;

  const rotate = (hookId: number, body?: unknown, api: ApiClient = setup.api): Promise<ApiResponse<Rotated>> =>
    body === undefined
      ? request<Rotated>(
          app.url,
          'POST',
          `/external/website/${setup.client.websiteId}/webhooks/${hookId}/rotate-secret`,
          {
            token: setup.webmaster.apiToken,
          },
        )
      : api.post<Rotated>(`/website/${setup.client.websiteId}/webhooks/${hookId}/rotate-secret`, body);

  /** Queues a webhook.test for the endpoint and returns the request its receiver gets. */
  async function delivered(hookId: number): Promise<Received> {
    const before = receiver.received.length;
    const queued = await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${hookId}/test`, {});
    expect(queued.status).to.equal(200);
    return (await receiver.waitFor(before + 1))[before]!;
  }

  /** What a refused rotation must leave as it was: the endpoint's row (its sealed secrets) and the audit trail. */
  const state = async (): Promise<string> =>
    JSON.stringify({
      webhooks: await app.provider.db('webhooks').orderBy('id').select(),
      audit: await app.provider.db('audit_entries').count<Array<{ count: string | number }>>({ count: '*' }),
    });

  before(async () => {
    app = await startTestApp({ clock, env: LOCAL_RECEIVERS });
    setup = await setUp(app);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());
  after(() => app.close());

  it('signs with both secrets during the overlap, so a receiver holding either verifies; after it only the new one verifies', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const rotated = await rotate(hook.id);
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    const { secret, previousSecretExpiresAt } = rotated.body;
    expect(secret)
      .to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .and.not.equal(hook.secret);
    expect(rotated.body).to.include({ id: hook.id, url: hook.url, disabledAt: null });
    // WEBHOOK_SECRET_OVERLAP_HOURS' default: 24 hours on the service's clock.
    expect(new Date(previousSecretExpiresAt!).getTime() - clock.now().getTime()).to.be.within(
      (24 * HOUR_S - 60) * 1000,
      24 * HOUR_S * 1000,
    );

    const during = await delivered(hook.id);
    expect(signaturesOf(during)).to.have.length(2);
    expect(verifies(hook.secret, during), 'a receiver still holding the old secret').to.equal(true);
    expect(verifies(secret, during), 'a receiver already holding the new secret').to.equal(true);
    expect(verified(secret, during).type).to.equal('webhook.test');

    // Both kept sealed: neither appears in the database, and the listing shows when the overlap ends, not a secret.
    const row = JSON.stringify(await app.provider.db('webhooks').where('id', hook.id).select());
    expect(row).to.not.include(secret.slice(6)).and.not.include(hook.secret.slice(6));
    const listed = await setup.api.get<Rotated[]>(`/website/${setup.client.websiteId}/webhooks`);
    expect(listed.body.find((one) => one.id === hook.id)).to.deep.include({ previousSecretExpiresAt });
    expect(JSON.stringify(listed.body)).to.not.include(secret.slice(6));

    clock.advance(24 * HOUR_S + 1);
    const after = await delivered(hook.id);
    expect(signaturesOf(after)).to.have.length(1);
    expect(verifies(secret, after), 'the new secret').to.equal(true);
    expect(verifies(hook.secret, after), 'the old secret, after the overlap').to.equal(false);
    const relisted = await setup.api.get<Rotated[]>(`/website/${setup.client.websiteId}/webhooks`);
    expect(relisted.body.find((one) => one.id === hook.id)).to.deep.include({ previousSecretExpiresAt: null });

    const audit = await setup.api.get<{ entries: Array<Record<string, unknown>> }>(
      `/website/${setup.client.websiteId}/audit?limit=1`,
    );
    expect(audit.body.entries[0]).to.deep.include({
      action: 'webhook.secret_rotated',
      after: { id: hook.id, secret: '(changed)', previousSecretExpiresAt },
    });
    expect(JSON.stringify(audit.body)).to.not.include(secret.slice(6)).and.not.include(hook.secret.slice(6));
  });

  it('keeps two secrets at most: a rotation during an overlap drops the oldest; an overlap of 0 hours drops the previous at once', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const second = (await rotate(hook.id, { overlapHours: 2 })).body;
    const third = (await rotate(hook.id, { overlapHours: 1 })).body;
    const during = await delivered(hook.id);
    expect(signaturesOf(during)).to.have.length(2);
    expect([hook.secret, second.secret, third.secret].map((secret) => verifies(secret, during))).to.deep.equal([
      false,
      true,
      true,
    ]);
    expect(new Date(third.previousSecretExpiresAt!).getTime() - clock.now().getTime()).to.be.within(0, HOUR_S * 1000);

    const immediate = await rotate(hook.id, { overlapHours: 0 });
    expect(immediate.status).to.equal(200);
    expect(immediate.body.previousSecretExpiresAt).to.equal(null);
    const after = await delivered(hook.id);
    expect(signaturesOf(after)).to.have.length(1);
    expect([third.secret, immediate.body.secret].map((secret) => verifies(secret, after))).to.deep.equal([false, true]);
  });

  it('lets two concurrent rotations both through, one after the other: the later one signs, the earlier one beside it', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const answers = await Promise.all([rotate(hook.id, {}), rotate(hook.id, {})]);
    expect(answers.map((answer) => answer.status)).to.deep.equal([200, 200]);
    const returned = answers.map((answer) => answer.body.secret);
    const row = await app.provider
      .db('webhooks')
      .where('id', hook.id)
      .first<{ secret_sealed: string; previous_secret_sealed: string }>('secret_sealed', 'previous_secret_sealed');
    const current = app.provider.runtime.sealer.unseal(row!.secret_sealed);
    const previous = app.provider.runtime.sealer.unseal(row!.previous_secret_sealed);
    // The later rotation's secret is current, and the one it replaced is the earlier rotation's: the original is gone.
    expect([current, previous]).to.have.members(returned);
    const received = await delivered(hook.id);
    expect(signaturesOf(received)).to.have.length(2);
    expect(verifies(current, received), 'the later rotation').to.equal(true);
    expect(verifies(previous, received), 'the earlier rotation, during its overlap').to.equal(true);
    expect(verifies(hook.secret, received), 'the original').to.equal(false);
  });

  it("refuses a read-only key (403), another website's webhook (404), a bad overlapHours (400) and a disabled endpoint, changing nothing", async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const other = await setUp(app);
    const othersHook = await register(other.api, other.client.websiteId, receiver.url);
    const readOnly = await createApiKey(
      app.provider.db,
      app.provider.runtime.clock,
      setup.webmaster.id,
      setup.webmaster.id,
      { name: 'ro', access: 'read', websiteId: null, expiresAt: null },
      TEST_ORIGIN,
    );
    const before = await state();

    const refused = await request(
      app.url,
      'POST',
      `/external/website/${setup.client.websiteId}/webhooks/${hook.id}/rotate-secret`,
      { token: readOnly.token, json: {} },
    );
    expect(refused.status).to.equal(403);
    expect(refused.body)
      .to.have.property('message')
      .that.matches(/read-only/);
    // Another website's endpoint through this website's path: not found, as if it did not exist.
    expectError(await rotate(othersHook.id, {}), 404);
    expectError(await rotate(hook.id + 1_000_000, {}), 404);
    for (const body of [
      { overlapHours: -1 },
      { overlapHours: 169 },
      { overlapHours: 1.5 },
      { overlapHours: '24' },
      { overlapHours: null },
      { overlap: 1 },
      [],
    ]) {
      const message = expectError(await rotate(hook.id, body), 400);
      expect(message, JSON.stringify(body)).to.match(/overlapHours|Unknown field|JSON object/);
    }
    expect(await state(), 'nothing changed').to.equal(before);

    await app.provider.db('webhooks').where('id', hook.id).update({ disabled_at: clock.now() });
    const disabledBefore = await state();
    // A state the request cannot change: the External API's 400 for state (docs/external-api.md "Errors").
    expect(expectError(await rotate(hook.id, {}), 400)).to.match(/disabled/);
    expect(await state()).to.equal(disabledBefore);
  });
});

describe('webhooks: the platform rotates an endpoint secret', function () {
  this.timeout(120_000);
  let app: TestApp;

  const text = (page: Page): string => decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

  before(async () => {
    app = await startTestApp({ env: { ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' } });
  });
  after(() => app.close());

  it('rotates once for a double submit, shows the new secret once and when the old one stops signing, and refuses a post without its form token', async () => {
    const { webmaster, client: site, api } = await setUp(app);
    const hook = await register(api, site.websiteId, 'https://hooks.example.com/rotate');
    const browser = new Browser(app.url, { headers: { 'accept-language': 'en' } });
    await browser.open('/platform/signin');
    await browser.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
    const path = `/platform/websites/${site.websiteId}/webhooks`;
    const page = await browser.open(path);
    const form = formOf(page, { action: `${path}/${hook.id}/rotate` });
    expect(form.fields).to.include({ overlapHours: '24' });

    const rotations = () =>
      app.provider
        .db('audit_entries')
        .where({ website_id: site.websiteId, action: 'webhook.secret_rotated' })
        .pluck('id');
    expect((await browser.post(`${path}/${hook.id}/rotate`, { overlapHours: '2' }, { csrf: null })).status).to.equal(
      403,
    );
    expect(await rotations(), 'no rotation without the form token').to.deep.equal([]);

    // A double click: the same form (its once value) sent twice at once.
    const answers = await Promise.all(
      [1, 2].map(() => browser.request(form.action, { body: { ...form.fields, overlapHours: '2' }, csrf: null })),
    );
    // The repeat lands where the first did, without running.
    expect(answers.map((answer) => [answer.status, answer.headers.get('location')])).to.deep.equal(
      [1, 2].map(() => [303, `${path}?saved=webhookRotated`]),
    );
    expect(await rotations(), 'rotated once').to.have.length(1);

    const shown = await browser.open(`${path}?saved=webhookRotated`);
    const secret = /<code>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(shown.html)?.[1];
    const row = await app.provider
      .db('webhooks')
      .where('id', hook.id)
      .first<{ secret_sealed: string }>('secret_sealed');
    expect(secret).to.equal(app.provider.runtime.sealer.unseal(row!.secret_sealed)).and.not.equal(hook.secret);
    expect(text(shown))
      .to.contain('The webhook has a new signing secret')
      .and.contain('you will not see it again')
      .and.match(/until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    const again = await browser.open(path);
    expect(again.html, 'shown once').to.not.contain(secret!);
    expect(text(again)).to.match(/until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);

    const refused = await browser.submit(formOf(again, { action: `${path}/${hook.id}/rotate` }), {
      overlapHours: '999',
    });
    expect(refused.status).to.equal(400);
    expect(text(refused)).to.contain('Invalid overlapHours');
    expect(await rotations()).to.have.length(1);
    expect(text(await browser.open(`/platform/websites/${site.websiteId}/activity`))).to.contain(
      'Webhook signing secret rotated',
    );
  });
});

describe('webhooks: an endpoint disabled is announced to the website’s other endpoints', function () {
  this.timeout(120_000);
  const clock = new MovableClock();
  let app: TestApp;
  const receivers: Array<{ close(): Promise<void> }> = [];
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

  const started = async (): Promise<Receiver> => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    return receiver;
  };

  before(async () => {
    smtp = await startSmtpSink();
    app = await startTestApp({
      clock,
      env: { ...LOCAL_RECEIVERS, SMTP_URL: smtp.url, MAIL_FROM: 'Age Provider <no-reply@age.example>' },
    });
  });
  after(async () => {
    await app.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
    await smtp.close();
  });

  /** A website with an endpoint that will be disabled, one watching for webhook.disabled and one that is not. */
  async function website() {
    const { webmaster, client, api } = await setUp(app);
    const failing = await started();
    const watcher = await started();
    const bystander = await started();
    return {
      webmaster,
      client,
      api,
      failing,
      watcher,
      failingHook: await register(api, client.websiteId, failing.url, ['website.updated']),
      watcherHook: await register(api, client.websiteId, watcher.url, ['webhook.disabled', 'website.updated']),
      bystanderHook: await register(api, client.websiteId, bystander.url, ['website.updated']),
    };
  }

  /** The messages waiting or sent for these endpoints, by event. */
  const messagesOf = (...hooks: CreatedWebhook[]): Promise<string[]> =>
    app.provider
      .db('webhook_messages')
      .whereIn(
        'webhook_id',
        hooks.map((hook) => hook.id),
      )
      .pluck('type');

  async function expectAnnounced(
    site: Awaited<ReturnType<typeof website>>,
    reason: 'failing' | 'gone',
  ): Promise<Payload> {
    const [received] = await site.watcher.waitFor(1);
    const payload = verified(site.watcherHook.secret, received!);
    const listed = await site.api.get<Array<{ id: number; disabledAt: string | null }>>(
      `/website/${site.client.websiteId}/webhooks`,
    );
    const disabledAt = listed.body.find((one) => one.id === site.failingHook.id)!.disabledAt;
    expect(disabledAt).to.be.a('string');
    expect(payload.type).to.equal('webhook.disabled');
    expect(payload.data).to.deep.equal({
      websiteId: site.client.websiteId,
      webhookId: site.failingHook.id,
      url: site.failingHook.url,
      reason,
      disabledAt,
    });
    expect(received!.body).to.not.include(site.failingHook.secret.slice(6));
    expect(
      await messagesOf(site.failingHook, site.bystanderHook),
      'nothing for the disabled one or a bystander',
    ).to.not.include('webhook.disabled');
    const audit = await site.api.get<{ entries: Array<Record<string, unknown>> }>(
      `/website/${site.client.websiteId}/audit?limit=1`,
    );
    expect(audit.body.entries[0]).to.deep.include({
      action: 'webhook.disabled',
      actor: { type: 'operator', id: 'webhook delivery' },
      after: { id: site.failingHook.id, url: site.failingHook.url, disabledAt, reason },
    });
    await until(
      () => smtp.mails.some((mail) => mail.to.join().includes(site.webmaster.email)),
      'the mail to the owner',
    );
    return payload;
  }

  it('announces an endpoint failing past WEBHOOK_DISABLE_AFTER_HOURS, signed, to the other endpoints subscribed, never to another website', async () => {
    const site = await website();
    // The same account's other website, watching too: it hears nothing of this one.
    const elsewhere = await started();
    const otherSite = await setUp(app);
    const otherHook = await register(otherSite.api, otherSite.client.websiteId, elsewhere.url, ['webhook.disabled']);
    site.failing.answer = () => 500;
    await site.api.post(`/website/${site.client.websiteId}/webhooks/${site.failingHook.id}/test`, {});
    await site.failing.waitFor(1);
    await until(
      async () =>
        (await app.provider.db('webhooks').where('id', site.failingHook.id).first('failing_since')).failing_since !==
        null,
      'the failure recorded',
    );
    clock.advance(121 * HOUR_S);
    await expectAnnounced(site, 'failing');
    const mail = smtp.mails.find((one) => one.to.join().includes(site.webmaster.email))!;
    expect(mail.data).to.include('120 hours');
    expect(await messagesOf(otherHook)).to.deep.equal([]);
  });

  it('announces an endpoint disabled by a 410 answer the same way, in its audit trail and by mail too', async () => {
    const site = await website();
    site.failing.answer = () => 410;
    await site.api.post(`/website/${site.client.websiteId}/webhooks/${site.failingHook.id}/test`, {});
    await expectAnnounced(site, 'gone');
    const mail = smtp.mails.find((one) => one.to.join().includes(site.webmaster.email))!;
    expect(mail.data).to.include('410 Gone');
  });
});
