import type { Context } from 'koa';
import { addSeconds } from '../../clock.js';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { Refusal } from '../../refusal.js';
import type { PlatformServices } from '../services.js';
import {
  createApiKey,
  listApiKeys,
  MAX_KEY_NAME_LENGTH,
  revokeApiKey,
  type KeyAccess,
} from '../../webmasters/api-tokens.js';
import { listWebsites } from '../../websites/index.js';
import { ID_PATTERN } from '../../websites/schemas/path-parameters.js';
import { accountOf, originOf, PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { newApiToken } from '../one-time-display.js';
import { formatTimestamp, renderPage } from '../page.js';
import { PlatformRoutes } from '../route-table.js';

const KEYS_PATH = `${PLATFORM_PATH}/keys`;
/** The expiries the form offers, in days ('never': no expiry). */
export const KEY_EXPIRIES = ['never', '30', '90', '365'] as const;

interface KeyForm {
  name: string;
  access: KeyAccess;
  website: string;
  expires: (typeof KEY_EXPIRIES)[number];
  _csrf: string;
}

const validKeyForm = compileSchema<KeyForm>({
  type: 'object',
  required: ['name', 'access', 'website', 'expires', '_csrf'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_KEY_NAME_LENGTH, pattern: '\\S' },
    access: { type: 'string', enum: ['read', 'write'] },
    website: { type: 'string', anyOf: [{ const: 'all' }, { pattern: ID_PATTERN }] },
    expires: { type: 'string', enum: [...KEY_EXPIRIES] },
    ...CSRF_FIELD,
  },
});

/**
 * The account's API keys (docs/external-api.md "API keys"): listed with their scope, expiry, maker and last use,
 * made (the key shown once, on the next page) and revoked one by one. Anyone who may change the account's websites
 * may manage its keys; a viewer sees the list.
 */
export function keyRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  async function show(
    ctx: Context,
    failed?: { values: Partial<KeyForm>; message: string },
    status = 200,
  ): Promise<void> {
    const accountId = accountOf(ctx);
    const [keys, websites] = await Promise.all([listApiKeys(runtime.db, accountId), listWebsites(runtime, accountId)]);
    const now = runtime.clock.now();
    const names = new Map(websites.map((website) => [website.id, website.name]));
    renderPage(
      ctx,
      'keys.njk',
      {
        newToken: newApiToken.take(ctx, runtime, accountId),
        keys: keys.map((key) => ({
          ...key,
          website: key.websiteId === null ? undefined : names.get(key.websiteId),
          createdAt: formatTimestamp(key.createdAt),
          lastUsedAt: key.lastUsedAt && formatTimestamp(key.lastUsedAt),
          expiresAt: key.expiresAt && formatTimestamp(key.expiresAt),
          expired: key.expiresAt !== null && key.expiresAt <= now,
        })),
        websites,
        expiries: KEY_EXPIRIES,
        failed,
        saved: ctx.query.saved === 'revoked' ? 'revoked' : undefined,
      },
      status,
    );
  }

  routes.get('/keys', 'view', (ctx) => show(ctx));

  routes.post('/keys', 'change', async (ctx) => {
    const form = readForm(ctx, validKeyForm);
    const values = (ctx.request.body ?? {}) as Partial<KeyForm>;
    if (!form) return show(ctx, { values, message: 'platform.apiKeys.error.form' }, 400);
    const accountId = accountOf(ctx);
    let token: string;
    try {
      ({ token } = await createApiKey(
        runtime.db,
        runtime.clock,
        accountId,
        webmasterOf(ctx)!.id,
        {
          name: form.name,
          access: form.access,
          websiteId: form.website === 'all' ? null : Number(form.website),
          expiresAt: form.expires === 'never' ? null : addSeconds(runtime.clock.now(), Number(form.expires) * 86_400),
        },
        originOf(ctx),
      ));
    } catch (error) {
      if (!(error instanceof Refusal) || error.kind !== 'invalid') throw error;
      return show(ctx, { values, message: 'platform.apiKeys.error.website' }, 400);
    }
    newApiToken.hold(ctx, runtime, accountId, token);
    seeOther(ctx, KEYS_PATH, { noStore: true });
  });

  routes.post('/keys/:key/revoke', 'change', async (ctx) => {
    const keyId = new RegExp(ID_PATTERN).test(ctx.params.key ?? '') ? Number(ctx.params.key) : 0;
    try {
      await revokeApiKey(runtime.db, runtime.clock, accountOf(ctx), keyId, originOf(ctx));
    } catch (error) {
      // Revoked already (a double click, another member): the page shows the keys as they are.
      if (!(error instanceof Refusal) || error.kind !== 'not_found') throw error;
    }
    seeOther(ctx, `${KEYS_PATH}?saved=revoked`, { noStore: true });
  });

  return routes;
}
