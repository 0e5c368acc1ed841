import { expect } from 'chai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Browser, locationOf } from '../helpers/browser.js';
import type { TestApp } from '../helpers/app.js';
import {
  createClientFixture,
  createWebmasterFixture,
  type ClientFixture,
  type WebmasterFixture,
} from '../helpers/fixtures.js';
import { apiClient, type ApiClient } from '../external/api.js';
import { authorizationUrl } from '../helpers/relying-party.js';

export interface CreatedWebhook {
  id: number;
  url: string;
  events: string[];
  createdAt: string;
  disabledAt: string | null;
  secret: string;
}
import type { WebhookDelivery as Delivery } from '../../lib/webhooks/endpoints.js';
export type { Delivery };
export interface Payload {
  type: string;
  timestamp: string;
  sequence: number;
  data: Record<string, unknown> & { result?: Record<string, unknown> };
}

/** Receivers on loopback over http: the operator's setting that allows them, and a quick look at the outbox. */
export const LOCAL_RECEIVERS = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_INTERVAL_MS: '50' };

/** A TEST flow through the test_outcome shortcut, as a website's automated test runs it; returns the code. */
export async function shortcutFlow(app: TestApp, client: ClientFixture): Promise<string> {
  const browser = new Browser(app.url);
  let next = await browser.request(authorizationUrl('', client, 'checker', { test_outcome: 'pass', state: 'st' }));
  while (!locationOf(next).searchParams.has('code')) {
    const location = locationOf(next);
    next = await browser.request(location.pathname + location.search);
  }
  return locationOf(next).searchParams.get('code')!;
}

/** Verifies a received request with the Standard Webhooks reference library (not our signing code). */
export function verified(secret: string, received: { headers: Record<string, unknown>; body: string }): Payload {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(received.headers[name])]),
  );
  return new StandardWebhook(secret).verify(received.body, headers) as Payload;
}

/** The endpoint's delivery log once it holds `count` attempts (the outbox is worked in the background). */
export async function recorded(
  api: ApiClient,
  websiteId: number,
  webhookId: number,
  count: number,
): Promise<Delivery[]> {
  for (;;) {
    const listed = await api.get<Delivery[]>(`/website/${websiteId}/webhooks/${webhookId}/deliveries`);
    expect(listed.status).to.equal(200);
    if (listed.body.length >= count) return listed.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function setUp(
  app: TestApp,
): Promise<{ webmaster: WebmasterFixture; client: ClientFixture; api: ApiClient }> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
  return { webmaster, client, api: apiClient(app.url, webmaster.apiToken) };
}

export async function register(
  api: ApiClient,
  websiteId: number,
  url: string,
  events = ['verification.completed'],
): Promise<CreatedWebhook> {
  const created = await api.post<CreatedWebhook>(`/website/${websiteId}/webhooks`, { url, events });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body;
}
