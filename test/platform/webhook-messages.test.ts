import { expect } from 'chai';
import type { WebhookMessage } from '../../lib/webhooks/inspection.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, formOf, formsOf, linkWithText, redirectPaths, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { StillClock } from '../oauth2/helpers/clock.js';
import { insertWebmaster, signedIn } from '../team/fixture.js';
import { LOCAL_RECEIVERS, register, setUp, type CreatedWebhook } from '../webhooks/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { apiClient, type ApiClient } from '../external/api.js';

const text = (page: Page): string => decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

/** The text of the page's <pre> with this id, as the browser shows it. */
function preById(page: Page, id: string): string {
  const found = new RegExp(`<pre id="${id}"[^>]*>([\\s\\S]*?)</pre>`).exec(page.html);
  expect(found, `no <pre id="${id}"> on ${page.url.pathname}`).to.not.equal(null);
  return decodeHtml(found![1]!);
}

/** The receivers' answers the page shows, one per attempt that got one. */
const answersOn = (page: Page): string[] =>
  [...page.html.matchAll(/<pre class="wrap">([\s\S]*?)<\/pre>/g)].map(([, inner]) => decodeHtml(inner!));

describe('webmasters platform: a webhook message, what was sent and answered, and its redelivery', function () {
  this.timeout(180_000);
  const clock = new StillClock();
  let app: TestApp;
  let receiver: Receiver;
  before(async () => {
    app = await startTestApp({ clock, env: { ...LOCAL_RECEIVERS } });
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());
  after(() => app?.close());

  /** A webmaster with a TEST website, a webhook to the receiver, and a browser signed in on the platform. */
  async function owner(): Promise<{
    api: ApiClient;
    websiteId: number;
    webmasterId: number;
    hook: CreatedWebhook;
    browser: Browser;
  }> {
    const { webmaster, client, api } = await setUp(app);
    const hook = await register(api, client.websiteId, receiver.url);
    // The webmaster's own account has the webmaster's id (migration 015).
    const browser = await signedIn(app.provider.runtime, app.url, webmaster.id, webmaster.id);
    return { api, websiteId: client.websiteId, webmasterId: webmaster.id, hook, browser };
  }

  /** The message through the External API once it holds `count` attempts and no attempt is due or in flight. */
  async function settled(api: ApiClient, path: string, count: number): Promise<WebhookMessage> {
    for (;;) {
      const answer = await api.get<WebhookMessage>(path.replace('/platform/websites/', '/website/'));
      expect(answer.status).to.equal(200);
      const { attempts, state } = answer.body;
      // Pending with a retry planned is settled too: nothing is due before the clock moves.
      if (attempts.length >= count && (state !== 'pending' || attempts.at(-1)!.nextRetryAt !== null))
        return answer.body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A `webhook.test` message, queued from the platform's Webhooks section: its id and its message page's path. */
  async function testMessage(
    browser: Browser,
    websiteId: number,
    hook: CreatedWebhook,
  ): Promise<{ messageId: string; path: string }> {
    const section = await browser.open(`/platform/websites/${websiteId}/webhooks`);
    await browser.submit(formOf(section, { action: `/webhooks/${hook.id}/test` }));
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    return { messageId, path: `/platform/websites/${websiteId}/webhooks/${hook.id}/messages/${messageId}` };
  }

  /** The outbox's own record of the message: how many attempts it was claimed for, and when it is due. */
  const outboxRow = (messageId: string) =>
    app.provider
      .db('webhook_messages')
      .where('message_id', messageId)
      .first<{ attempts: number; next_attempt_at: Date | null }>('attempts', 'next_attempt_at');

  it("shows the body sent byte for byte and the receiver's 503 answer, then the redelivered attempt with the same webhook-id", async () => {
    const { api, websiteId, hook, browser } = await owner();
    // Markup in the answer is the receiver's text, never the page's; it is longer than the KiB kept.
    const answer = `<script>alert("pwned")</script> database down & retrying ${'x'.repeat(2000)}`;
    receiver.replyBody = answer;
    receiver.answer = (index) => (index === 0 ? 503 : 200);
    const { messageId, path } = await testMessage(browser, websiteId, hook);
    await settled(api, path, 1);

    // The delivery row on the Webhooks section leads to the message's page.
    const section = await browser.open(`/platform/websites/${websiteId}/webhooks`);
    expect(linkWithText(section, 'webhook.test').pathname).to.equal(path);
    let page = await browser.open(linkWithText(section, 'webhook.test'));
    expect(page.status).to.equal(200);
    expect(page.url.pathname).to.equal(path);
    expect(text(page))
      .to.contain(messageId)
      .and.contain(hook.url)
      .and.contain('Pending: waiting for its next attempt')
      .and.contain('Attempt 1')
      .and.contain('HTTP status 503')
      .and.contain('HTTP 503: the receiver did not accept the message')
      .and.contain('(its first KiB: the answer was longer)')
      .and.not.contain('Attempt 2');
    // Exactly what the receiver got (what the signature covered), and the same laid out for reading.
    const [sent] = receiver.received;
    expect(preById(page, 'body-exact')).to.equal(sent!.body);
    const readable = preById(page, 'body-readable');
    expect(readable.split('\n').length).to.be.greaterThan(3);
    expect(JSON.parse(readable)).to.deep.equal(JSON.parse(sent!.body));
    // The first KiB of the answer, escaped: no markup of the receiver's reaches the page.
    expect(answersOn(page)).to.deep.equal([answer.slice(0, 1024)]);
    expect(page.html).to.not.contain('<script>alert');

    receiver.replyBody = 'thanks';
    page = await browser.submit(formOf(page, { button: 'Redeliver now' }));
    expect(redirectPaths(page)).to.deep.equal([path]);
    expect(page.url.search).to.equal('?saved=redelivered');
    expect(text(page)).to.contain('Queued: sent again now with the same webhook-id.');
    // The 503 backed the endpoint off for 5 s: the redelivery goes when that ends, as one attempt with the retry due
    // then (not two).
    clock.advance(6);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).to.equal(messageId);
    expect(again!.body).to.equal(sent!.body);
    expect((await settled(api, path, 2)).state).to.equal('delivered');

    page = await browser.open(path);
    expect(text(page))
      .to.contain('Delivered')
      .and.contain('Attempt 2')
      .and.contain('HTTP status 200')
      .and.not.contain('Attempt 3');
    expect(answersOn(page)).to.deep.equal([answer.slice(0, 1024), 'thanks']);
    expect(receiver.received).to.have.length(2);
  });

  it('redelivers once for a double submit: the repeat lands where the first did, and a later repeat sends nothing', async () => {
    const { api, websiteId, hook, browser } = await owner();
    const { messageId, path } = await testMessage(browser, websiteId, hook);
    expect((await settled(api, path, 1)).state).to.equal('delivered');
    const form = formOf(await browser.open(path), { button: 'Redeliver now' });
    expect(form.fields._once).to.match(/.{16,}/);
    const post = () => browser.request(form.action, { method: 'POST', body: form.fields, csrf: null });

    const [first, second] = await Promise.all([post(), post()]);
    const landing = `${path}?saved=redelivered`;
    expect([first.status, second.status]).to.deep.equal([303, 303]);
    const landed = [first, second].map((answer) => new URL(answer.headers.get('location')!, app.url));
    expect(landed.map((url) => url.pathname + url.search)).to.deep.equal([landing, landing]);
    await receiver.waitFor(2);
    const redelivered = await settled(api, path, 2);
    expect(redelivered.state).to.equal('delivered');
    expect(redelivered.attempts).to.have.length(2);

    // The same form once more, after its redelivery landed: sent where the first went, nothing queued or claimed.
    const repeat = await post();
    expect(repeat.status).to.equal(303);
    expect(repeat.headers.get('location')).to.equal(first.headers.get('location'));
    expect(await outboxRow(messageId)).to.deep.include({ attempts: 2, next_attempt_at: null });
    expect(receiver.received.map((one) => one.headers['webhook-id'])).to.deep.equal([messageId, messageId]);

    // The page rendered again is a new form: it redelivers again.
    await browser.submit(formOf(await browser.open(path), { button: 'Redeliver now' }));
    await receiver.waitFor(3);
    expect((await settled(api, path, 3)).attempts).to.have.length(3);
  });

  it('lets a viewer read the message but not redeliver it, and refuses a post without its form token', async () => {
    const { api, websiteId, webmasterId, hook, browser } = await owner();
    const { messageId, path } = await testMessage(browser, websiteId, hook);
    await settled(api, path, 1);
    const before = await outboxRow(messageId);

    const viewer = await insertWebmaster(app.provider.runtime);
    await app.provider
      .db('account_members')
      .insert({ account_id: webmasterId, webmaster_id: viewer.id, role: 'viewer' });
    const reader = await signedIn(app.provider.runtime, app.url, viewer.id, webmasterId);
    const page = await reader.open(path);
    expect(page.status).to.equal(200);
    expect(text(page)).to.contain(messageId).and.contain('Delivered');
    expect(preById(page, 'body-exact')).to.equal(receiver.received[0]!.body);
    expect(formsOf(page).map((form) => form.action.pathname)).to.not.include(`${path}/redeliver`);
    const refused = await reader.post(`${path}/redeliver`, {});
    expect(refused.status).to.equal(403);
    expect(text(refused)).to.contain('Not allowed for your role');

    // The owner's own session, without the form token or with another one.
    for (const csrf of [null, 'not-the-token']) {
      const answer = await browser.request(`${path}/redeliver`, { method: 'POST', body: {}, csrf });
      expect(answer.status, String(csrf)).to.equal(403);
      expect(decodeHtml(await answer.text()), String(csrf)).to.contain('This form has expired');
    }
    expect(await outboxRow(messageId)).to.deep.equal(before);
    expect(receiver.received).to.have.length(1);
  });

  it("finds no other account's or other website's message, refuses malformed ids, and a disabled endpoint's redelivery", async () => {
    const { api, websiteId, webmasterId, hook, browser } = await owner();
    const { messageId, path } = await testMessage(browser, websiteId, hook);
    await settled(api, path, 1);
    const before = await outboxRow(messageId);

    // Another account: our website is not theirs (401, as everywhere on the platform); through their own website and
    // webhook, our message id is not found.
    const stranger = await createWebmasterFixture(app.provider.runtime);
    const strangerSite = await createClientFixture(app.provider.runtime, stranger.id, { environment: 'TEST' });
    const strangerHook = await register(apiClient(app.url, stranger.apiToken), strangerSite.websiteId, receiver.url);
    const intruder = await signedIn(app.provider.runtime, app.url, stranger.id, stranger.id);
    expect((await intruder.open(path)).status).to.equal(401);
    expect((await intruder.post(`${path}/redeliver`, {})).status).to.equal(401);
    const theirs = `/platform/websites/${strangerSite.websiteId}/webhooks/${strangerHook.id}/messages/${messageId}`;
    const notFound = await intruder.open(theirs);
    expect(notFound.status).to.equal(404);
    expect(text(notFound)).to.contain('Page not found');
    expect((await intruder.post(`${theirs}/redeliver`, {})).status).to.equal(404);
    // The owner's other website, with a webhook of its own: not found either.
    const other = await createClientFixture(app.provider.runtime, webmasterId, { environment: 'TEST' });
    const otherHook = await register(api, other.websiteId, receiver.url);
    const crossed = `/platform/websites/${other.websiteId}/webhooks/${otherHook.id}/messages/${messageId}`;
    expect((await browser.open(crossed)).status).to.equal(404);
    expect((await browser.post(`${crossed}/redeliver`, {})).status).to.equal(404);

    const base = `/platform/websites/${websiteId}/webhooks`;
    for (const bad of [
      `${hook.id}/messages/msg_x`,
      `${hook.id}/messages/msg_${'A'.repeat(32)}`,
      `${hook.id}/messages/${messageId}0`,
      `${hook.id}/messages/%00`,
      `x/messages/${messageId}`,
    ]) {
      const answer = await browser.open(`${base}/${bad}`);
      expect(answer.status, bad).to.equal(400);
      expect(text(answer), bad).to.contain('Something is missing');
      expect((await browser.post(`${base}/${bad}/redeliver`, {})).status, bad).to.equal(400);
    }
    expect(await outboxRow(messageId)).to.deep.equal(before);

    // Disabled while its page was open: the form already shown is refused, with why, where its button was.
    const form = formOf(await browser.open(path), { button: 'Redeliver now' });
    await app.provider
      .db('webhooks')
      .where('id', hook.id)
      .update({ disabled_at: clock.now(), disabled_reason: 'test' });
    const disabled = await browser.submit(form);
    expect(disabled.status).to.equal(400);
    expect(disabled.html).to.match(/<p class="error" id="redeliver-refused" role="alert">This webhook is disabled/);
    expect(formsOf(disabled).map((one) => one.action.pathname)).to.not.include(`${path}/redeliver`);
    expect(await outboxRow(messageId)).to.deep.equal(before);
    expect(receiver.received).to.have.length(1);
  });
});
