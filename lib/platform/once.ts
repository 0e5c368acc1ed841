import type { Context, Middleware } from 'koa';
import { setTimeout as delay } from 'node:timers/promises';
import { HttpError } from '../http/errors.js';
import { seeOther } from '../http/see-other.js';
import type { PlatformServices } from './services.js';
import { randomToken, sha256 } from '../security/hashing.js';
import { webmasterOf } from './authentication.js';

/** The hidden field of a form that must have one effect however often it is posted. */
export const ONCE_FIELD = '_once';
/** A new value for every page rendered: each form on it is one submission (its action tells them apart). */
export const onceValue = (): string => randomToken(16);

/** A submission is remembered this long: far past any double click or browser retry. */
const KEPT_MS = 60 * 60 * 1000;
/** How long a repeat waits for the first submission to land before it gives up and lands on the page it came from. */
const WAIT_MS = 10_000;
const POLL_MS = 50;

/**
 * One effect per submitted form (docs/decisions/reliability.md "Repeated submits"): a form that creates or regenerates something
 * (a website, a key, OAuth2 credentials, an API token, a webhook, its test message or a message's redelivery) carries a
 * value fresh with its page. The first post of that
 * value claims it and runs; every repeat (a double click, a browser retrying) waits for the first to land and is sent
 * where it landed, without running. A first post that does not land on a redirect (its fields refused) gives the
 * claim back, so the form can be corrected and sent again.
 */
export function onceForms(runtime: Pick<PlatformServices, 'db' | 'clock'>): Middleware {
  const table = () => runtime.db('form_effects');
  return async (ctx, next) => {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const value = body?.[ONCE_FIELD];
    if (ctx.method !== 'POST' || typeof value !== 'string' || value === '' || value.length > 64) return next();
    // The handlers' schemas know nothing of it.
    delete body![ONCE_FIELD];
    const key = sha256(`${webmasterOf(ctx)?.id ?? ''}:${ctx.path}:${value}`);
    const now = runtime.clock.now();
    await table()
      .where('created_at', '<', new Date(now.getTime() - KEPT_MS))
      .delete();
    const claimed = await table()
      .insert({ key_hash: key, created_at: now })
      .onConflict('key_hash')
      .ignore()
      .returning<Array<{ key_hash: string }>>('key_hash');
    if (claimed.length === 0 && (await landedFirst(ctx, key))) return;
    if (claimed.length === 0) return next();
    try {
      await next();
    } finally {
      const landing = ctx.status === 303 ? ctx.response.get('Location') : '';
      if (landing) await table().where('key_hash', key).update({ landing });
      else await table().where('key_hash', key).delete();
    }
  };

  /**
   * A repeat: sent where the first landed, once it has. False when the first gave its claim back (its fields were
   * refused): the repeat then runs as the first did and shows the same refusal.
   */
  async function landedFirst(ctx: Context, key: string): Promise<boolean> {
    for (let waited = 0; waited < WAIT_MS; waited += POLL_MS) {
      const row = await table().where('key_hash', key).first<{ landing: string | null } | undefined>('landing');
      if (!row) return false;
      if (row.landing) {
        seeOther(ctx, row.landing, { noStore: true });
        return true;
      }
      await delay(POLL_MS);
    }
    throw new HttpError(503, 'The same form is still being handled. Retry in a moment.', { 'Retry-After': '1' });
  }
}
