import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml } from '../helpers/browser.js';
import { readResources, requestToken } from '../helpers/relying-party.js';
import { MovableClock } from '../oauth2/helpers/clock.js';
import { RETRY_DELAYS_SECONDS } from '../../lib/webhooks/delivery.js';
import { LOCAL_RECEIVERS, recorded, register, setUp, shortcutFlow, verified, type Delivery } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('webhooks: signed deliveries to a real receiver', () => {
  const clock = new MovableClock();
  let app: TestApp;
  let receiver: Receiver;
  let setup: Awaited<ReturnType<typeof setUp>>;
  before(async () => {
    app = await startTestApp({ clock, env: LOCAL_RECEIVERS });
    setup = await setUp(app);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());
  after(() => app.close());

  it('registers an endpoint with a whsec_ secret shown once, and lists it without the secret', async () => {
    const created = await register(setup.api, setup.client.websiteId, receiver.url, [
      'verification.completed',
      'key.regenerated',
    ]);
    expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).to.include({ url: receiver.url, disabledAt: null });
    expect(created.events).to.deep.equal(['verification.completed', 'key.regenerated']);
    const listed = await setup.api.get<Array<Record<string, unknown>>>(`/website/${setup.client.websiteId}/webhooks`);
    expect(listed.status).to.equal(200);
    const mine = listed.body.find((hook) => hook.id === created.id)!;
    expect(mine).to.deep.equal({
      id: created.id,
      url: receiver.url,
      events: created.events,
      createdAt: created.createdAt,
      disabledAt: null,
      previousSecretExpiresAt: null,
    });
    expect(JSON.stringify(listed.body)).to.not.include(created.secret.slice(6));
    // Kept sealed: the database holds no trace of it.
    const rows = await app.provider.db('webhooks').where('id', created.id).select();
    expect(JSON.stringify(rows)).to.not.include(created.secret.slice(6));
    expect((await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${created.id}`)).status).to.equal(204);
  });

  it('sends verification.completed for a TEST flow, signed so that the Standard Webhooks library verifies it, matching Resources', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const code = await shortcutFlow(app, setup.client);
    const [received] = await receiver.waitFor(1);
    const payload = verified(hook.secret, received!);
    expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, received!), 'another secret').to.throw();
    expect(
      () => verified(hook.secret, { ...received!, body: received!.body.replace('"TEST"', '"LIVE"') }),
      'an altered body',
    ).to.throw();
    expect(received!.headers['webhook-id']).to.match(/^msg_[0-9a-f]{32}$/);
    expect(payload.type).to.equal('verification.completed');
    expect(Date.parse(payload.timestamp)).to.be.closeTo(clock.now().getTime(), 60_000);
    expect(payload.data).to.deep.include({
      websiteId: setup.client.websiteId,
      environment: 'TEST',
      challenge: 'sandbox',
      outcome: 'passed',
    });
    const token = (await (await requestToken(app, { code, client: setup.client })).json()) as { access_token: string };
    const { resources } = (await (await readResources(app, token.access_token)).json()) as {
      resources: Record<string, unknown>;
    };
    const { expires_in: _sent, ...result } = payload.data.result!;
    const { expires_in: _read, ...read } = resources;
    expect(result).to.deep.equal(read);
    expect(Object.keys(payload.data.result!)).to.have.length(9);
    await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${hook.id}`);
  });

  /**
   * A change made through the External API on a website of its own, and what the message announcing it must carry
   * beside `websiteId` (docs/webhooks.md's table). `secrets` are what the change handed out and no message may show.
   */
  interface Announcement {
    change: string;
    event: string;
    /** made before the endpoint exists: announces nothing to it */
    prepare?: (websiteId: number) => Promise<void>;
    make: (websiteId: number) => Promise<{ data: Record<string, unknown>; secrets: string[] }>;
  }
  const ok = <T>(answer: { status: number; body: T }): T => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body;
  };
  const announcements: Announcement[] = [
    {
      change: 'a public key regeneration',
      event: 'key.regenerated',
      async make(websiteId) {
        const key = ok(
          await setup.api.patch<{ environment: string; publicKey: string }>(
            `/website/${websiteId}/key/live/regenerate`,
          ),
        );
        return { data: { environment: 'LIVE', publicKey: key.publicKey }, secrets: [] };
      },
    },
    {
      change: 'a new OAuth2 configuration',
      event: 'oauth2.updated',
      async make(websiteId) {
        const created = ok(
          await setup.api.post<{ clientSecret: string }>(`/website/${websiteId}/oauth2/live`, {
            redirectUris: ['https://shop.example.com/cb'],
          }),
        );
        return {
          data: { environment: 'LIVE', status: 'ACTIVE', redirectUris: ['https://shop.example.com/cb'] },
          secrets: [created.clientSecret],
        };
      },
    },
    {
      change: 'an OAuth2 configuration update',
      event: 'oauth2.updated',
      async prepare(websiteId) {
        ok(
          await setup.api.post(`/website/${websiteId}/oauth2/test`, { redirectUris: ['https://shop.example.com/cb'] }),
        );
      },
      async make(websiteId) {
        const redirectUris = ['https://shop.example.com/cb', 'https://shop.example.com/other'];
        const updated = ok(
          await setup.api.patch<{ clientSecret: string }>(`/website/${websiteId}/oauth2/test`, { redirectUris }),
        );
        return { data: { environment: 'TEST', status: 'ACTIVE', redirectUris }, secrets: [updated.clientSecret] };
      },
    },
    {
      change: 'a client credential regeneration',
      event: 'oauth2.credentials.regenerated',
      async prepare(websiteId) {
        ok(
          await setup.api.post(`/website/${websiteId}/oauth2/test`, { redirectUris: ['https://shop.example.com/cb'] }),
        );
      },
      async make(websiteId) {
        const regenerated = ok(
          await setup.api.patch<{ clientId: string; clientSecret: string }>(
            `/website/${websiteId}/oauth2/test/regenerate`,
          ),
        );
        return { data: { environment: 'TEST', clientId: regenerated.clientId }, secrets: [regenerated.clientSecret] };
      },
    },
    {
      change: 'a website edit (name, language, challenges, regions)',
      event: 'website.updated',
      async make(websiteId) {
        const before = ok(await setup.api.get<{ challenges: string[] }>(`/website/${websiteId}`));
        const edit = {
          name: 'Renamed shop',
          language: 'fr',
          challenges: before.challenges.slice(-1),
          regions: ['FR', 'BE'],
        };
        ok(await setup.api.patch(`/website/${websiteId}`, edit));
        const { id: _id, ...website } = ok(await setup.api.get<Record<string, unknown>>(`/website/${websiteId}`));
        expect(website).to.deep.include(edit);
        return { data: { website }, secrets: [] };
      },
    },
  ];

  for (const { change, event, prepare, make } of announcements) {
    it(`announces ${change} made through the API as ${event}, with the documented data and no secret`, async () => {
      const websiteId = ok(
        await setup.api.post<{ id: number }>('/website', { name: 'Announced', domain: 'announced.example.com' }),
      ).id;
      await prepare?.(websiteId);
      const hook = await register(setup.api, websiteId, receiver.url, [event]);
      const { data, secrets } = await make(websiteId);
      const [received] = await receiver.waitFor(1);
      const payload = verified(hook.secret, received!);
      expect(payload).to.have.all.keys('type', 'timestamp', 'sequence', 'data');
      expect(payload.sequence).to.be.a('number');
      expect(payload.type).to.equal(event);
      // When the change happened: the time its audit entry records.
      const audited = ok(
        await setup.api.get<{ entries: Array<{ at: string }> }>(`/website/${websiteId}/audit?limit=1`),
      );
      expect(payload.timestamp).to.equal(audited.entries[0]!.at);
      expect(payload.data).to.deep.equal({ websiteId, ...data });
      for (const secret of [...secrets, hook.secret.slice(6), setup.webmaster.apiToken, setup.client.clientSecret]) {
        expect(secret).to.be.a('string').and.not.equal('');
        expect(received!.body).to.not.include(secret);
      }
      expect(
        await app.provider.db('webhook_messages').where('webhook_id', hook.id).pluck('type'),
        'one message for one change',
      ).to.deep.equal([event]);
      await setup.api.delete(`/website/${websiteId}/webhooks/${hook.id}`);
    });
  }

  it("announces a policy change made through the API as website.updated with the website's new rules", async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url, ['website.updated']);
    const rules = [{ regions: ['FR'], ageThreshold: 21 }];
    expect((await setup.api.put(`/website/${setup.client.websiteId}/policy`, { rules })).status).to.equal(200);
    const [received] = await receiver.waitFor(1);
    const payload = verified(hook.secret, received!);
    expect(payload.type).to.equal('website.updated');
    expect(payload.data).to.deep.equal({ websiteId: setup.client.websiteId, policy: { rules } });
    // A refused change announces nothing.
    expect(
      (
        await setup.api.put(`/website/${setup.client.websiteId}/policy`, {
          rules: [{ regions: ['FR'], ageThreshold: 'old' }],
        })
      ).status,
    ).to.equal(400);
    expect(await app.provider.db('webhook_messages').where('webhook_id', hook.id).pluck('type')).to.deep.equal([
      'website.updated',
    ]);
    await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${hook.id}`);
  });

  it('retries a receiver that fails five times with growing delays, then delivers the same message once it answers', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    receiver.answer = (index) => (index < 5 ? 500 : 204);
    expect((await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${hook.id}/test`, {})).status).to.equal(
      200,
    );
    for (let failure = 0; failure < 5; failure += 1) {
      await receiver.waitFor(failure + 1);
      // Past the retry's latest time (delay plus its jitter): the next attempt is due.
      await recorded(setup.api, setup.client.websiteId, hook.id, failure + 1);
      clock.advance(RETRY_DELAYS_SECONDS[failure]! * 1.1 + 1);
    }
    const received = await receiver.waitFor(6);
    expect(new Set(received.map((one) => one.headers['webhook-id'])).size, 'one message, six attempts').to.equal(1);
    for (const one of received) expect(verified(hook.secret, one).type).to.equal('webhook.test');
    const deliveries = await recorded(setup.api, setup.client.websiteId, hook.id, 6);
    const attempts = [...deliveries].reverse();
    expect(attempts.map((attempt) => attempt.status)).to.deep.equal([500, 500, 500, 500, 500, 204]);
    expect(attempts.map((attempt) => attempt.attempt)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    const waits = attempts
      .slice(0, 5)
      .map((attempt) => (Date.parse(attempt.nextRetryAt!) - Date.parse(attempt.attemptedAt)) / 1000);
    waits.forEach((wait, index) =>
      expect(wait).to.be.within(RETRY_DELAYS_SECONDS[index]! * 0.9, RETRY_DELAYS_SECONDS[index]! * 1.1),
    );
    expect(attempts[5]!.nextRetryAt).to.equal(null);
    const listed = await setup.api.get<Delivery[]>(`/website/${setup.client.websiteId}/webhooks/${hook.id}/deliveries`);
    expect(listed.body).to.deep.equal(deliveries);
    await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${hook.id}`);
  });

  it("shows each attempt on the platform's Webhooks section, the answer next to the time, to the second as the API records it", async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    receiver.answer = () => 500;
    expect((await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${hook.id}/test`, {})).status).to.equal(
      200,
    );
    const [delivery] = await recorded(setup.api, setup.client.websiteId, hook.id, 1);
    const webmaster = new Browser(app.url);
    await webmaster.open('/platform/signin');
    await webmaster.post('/platform/signin', { email: setup.webmaster.email, password: setup.webmaster.password });
    const page = await webmaster.open(`/platform/websites/${setup.client.websiteId}/webhooks`);
    const words = decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
    const shown = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')} UTC`;
    expect(words).to.contain(
      `When Answer Event Next attempt Duration ${shown(delivery!.attemptedAt)} 500 webhook.test #1 ${shown(delivery!.nextRetryAt!)} ${delivery!.durationMs} ms`,
    );
    await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${hook.id}`);
  });

  it('keeps retrying for more than 24 hours before giving up', () => {
    const shortest = RETRY_DELAYS_SECONDS.reduce((total, delay) => total + delay * 0.9, 0);
    expect(shortest).to.be.greaterThan(24 * 3600);
  });

  it('disables an endpoint whose receiver answers 410 Gone, and follows no redirect', async () => {
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    const other = await startReceiver();
    try {
      receiver.answer = () => 302;
      receiver.location = other.url;
      const moved = await register(setup.api, setup.client.websiteId, receiver.url.replace('/hooks', '/moved'));
      await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${moved.id}/test`, {});
      const [attempt] = await recorded(setup.api, setup.client.websiteId, moved.id, 1);
      expect(attempt).to.include({ status: 302 });
      expect(attempt!.nextRetryAt).to.not.equal(null);
      expect(other.received).to.have.length(0);
      await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${moved.id}`);

      receiver.answer = () => 410;
      delete receiver.location;
      await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${hook.id}/test`, {});
      const [gone] = await recorded(setup.api, setup.client.websiteId, hook.id, 1);
      expect(gone).to.include({ status: 410, nextRetryAt: null });
      const listed = await setup.api.get<Array<{ id: number; disabledAt: string | null }>>(
        `/website/${setup.client.websiteId}/webhooks`,
      );
      expect(listed.body.find((one) => one.id === hook.id)!.disabledAt).to.be.a('string');
      const again = await setup.api.post<{ statusCode: number }>(
        `/website/${setup.client.websiteId}/webhooks/${hook.id}/test`,
        {},
      );
      expect(again.status).to.equal(404);
      await shortcutFlow(app, setup.client);
      expect(
        await app.provider.db('webhook_messages').where('webhook_id', hook.id).pluck('type'),
        'nothing queued for a disabled endpoint',
      ).to.deep.equal(['webhook.test']);
    } finally {
      await other.close();
      await setup.api.delete(`/website/${setup.client.websiteId}/webhooks/${hook.id}`);
    }
  });
});
