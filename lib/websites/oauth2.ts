import { addSeconds } from '../clock.js';
import { oauth2CreateSchema } from './schemas/oauth2-create.js';
import { oauth2UpdateSchema } from './schemas/oauth2-update.js';
import { validator } from './validation.js';
import { Refusal } from '../refusal.js';
import type { WebsiteServices } from './services.js';
import { newClientId, newClientSecret } from './credentials.js';
import type { Environment, OAuth2Configuration, OAuth2CreateInput, OAuth2Status, OAuth2UpdateInput } from './models.js';
import { checkWebsiteId, lockWebsiteForChange, websiteAccess, type Queryable } from './ownership.js';
import { retriedTransaction } from '../store/retry.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';

/** How long the previous credentials stay valid after a regeneration. */
export const CREDENTIAL_GRACE_SECONDS = 24 * 3600;

interface ConfigRow {
  id: number;
  environment: Environment;
  status: OAuth2Status;
  redirect_uris: string[];
}

interface CredentialRow {
  client_id: string;
  secret_sealed: string;
}

const validateCreate = validator<OAuth2CreateInput>(oauth2CreateSchema, 'body');
const validateUpdate = validator<OAuth2UpdateInput & { status?: OAuth2Status }>(oauth2UpdateSchema, 'body');

/**
 * The owner's configuration for the environment (joined on the website's owner), optionally locked FOR UPDATE so
 * concurrent writes to it run one after the other. Missing website 404, another's 401, no configuration 404.
 */
async function ownedConfig(
  q: Queryable,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
  lock: boolean,
): Promise<ConfigRow> {
  checkWebsiteId(websiteId);
  const query = q('oauth2_configs as c')
    .join('websites as w', 'w.id', 'c.website_id')
    .where({ 'w.id': websiteId, 'w.webmaster_id': webmasterId, 'c.environment': environment })
    .first<ConfigRow | undefined>('c.id', 'c.environment', 'c.status', 'c.redirect_uris');
  const row = await (lock ? query.forUpdate('c') : query);
  if (row) return row;
  await websiteAccess(q, webmasterId, websiteId);
  throw new Refusal('not_found', `This website has no OAuth2 configuration for the ${environment} environment.`);
}

/** An OAuth2 configuration as shown: clientId and the unsealed clientSecret of the current pair only while ACTIVE (rule 5). */
function configurationOf(
  runtime: WebsiteServices,
  config: ConfigRow,
  current: CredentialRow | undefined,
): OAuth2Configuration {
  const view: OAuth2Configuration = {
    environment: config.environment,
    redirectUris: config.redirect_uris,
    status: config.status,
  };
  if (config.status !== 'ACTIVE' || !current) return view;
  return { ...view, clientId: current.client_id, clientSecret: runtime.sealer.unseal(current.secret_sealed) };
}

async function present(q: Queryable, runtime: WebsiteServices, config: ConfigRow): Promise<OAuth2Configuration> {
  const current =
    config.status === 'ACTIVE'
      ? await q('oauth2_credentials')
          .where('config_id', config.id)
          .whereNull('superseded_at')
          .first<CredentialRow | undefined>('client_id', 'secret_sealed')
      : undefined;
  return configurationOf(runtime, config, current);
}

async function insertCredentials(q: Queryable, runtime: WebsiteServices, config: ConfigRow, now: Date): Promise<void> {
  await q('oauth2_credentials').insert({
    config_id: config.id,
    client_id: newClientId(config.environment),
    secret_sealed: runtime.sealer.seal(newClientSecret()),
    created_at: now,
  });
}

/** Create an OAuth2 configuration: an ACTIVE configuration with credentials at once; a second one for the environment is 400. */
export async function createOAuth2Config(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
  input: OAuth2CreateInput,
  origin: ChangeOrigin,
): Promise<OAuth2Configuration> {
  const body = validateCreate(input);
  checkWebsiteId(websiteId);
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    await websiteAccess(trx, webmasterId, websiteId);
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const [config] = await trx('oauth2_configs')
      .insert({
        website_id: websiteId,
        environment,
        status: 'ACTIVE',
        redirect_uris: JSON.stringify(body.redirectUris),
        created_at: now,
        updated_at: now,
      })
      .onConflict(['website_id', 'environment'])
      .ignore()
      .returning<ConfigRow[]>(['id', 'environment', 'status', 'redirect_uris']);
    if (!config) {
      throw new Refusal(
        'conflict',
        `This website already has an OAuth2 configuration for the ${environment} environment; update it instead.`,
      );
    }
    await insertCredentials(trx, runtime, config, now);
    const configuration = await present(trx, runtime, config);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'oauth2.created',
      before: null,
      after: audited(configuration),
    });
    return configuration;
  });
}

/** What the audit trail keeps of a configuration: the client secret only as having changed, when there is one. */
const audited = ({ clientSecret, ...configuration }: OAuth2Configuration): Record<string, unknown> => ({
  ...configuration,
  ...(clientSecret !== undefined ? { clientSecret: SECRET_CHANGED } : {}),
});

/** Read an environment's OAuth2 configuration. */
export async function getOAuth2Config(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
): Promise<OAuth2Configuration> {
  const config = await ownedConfig(runtime.db, webmasterId, websiteId, environment, false);
  return present(runtime.db, runtime, config);
}

/** The OAuth2 configurations per environment of these websites of the webmaster's, in one query (the platform's pages). */
export async function listOAuth2Configs(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteIds: number[],
): Promise<Map<number, Partial<Record<Environment, OAuth2Configuration>>>> {
  const configs = new Map<number, Partial<Record<Environment, OAuth2Configuration>>>();
  if (websiteIds.length === 0) return configs;
  const rows = await runtime
    .db('oauth2_configs as c')
    .join('websites as w', 'w.id', 'c.website_id')
    .leftJoin('oauth2_credentials as k', (join) => join.on('k.config_id', 'c.id').andOnNull('k.superseded_at'))
    .where('w.webmaster_id', webmasterId)
    .whereIn('w.id', websiteIds)
    .orderBy(['c.website_id', 'c.environment'])
    .select<Array<ConfigRow & { website_id: number; client_id: string | null; secret_sealed: string | null }>>(
      'c.website_id',
      'c.id',
      'c.environment',
      'c.status',
      'c.redirect_uris',
      'k.client_id',
      'k.secret_sealed',
    );
  for (const row of rows) {
    const current =
      row.client_id !== null && row.secret_sealed !== null
        ? { client_id: row.client_id, secret_sealed: row.secret_sealed }
        : undefined;
    const website = configs.get(row.website_id) ?? {};
    website[row.environment] = configurationOf(runtime, row, current);
    configs.set(row.website_id, website);
  }
  return configs;
}

/**
 * Update an OAuth2 configuration: status is applied; redirectUris too unless the request sets status DISABLED (rule 3).
 * Credentials are kept while DISABLED (the provider ignores a disabled client), so re-activating restores them.
 */
export async function updateOAuth2Config(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
  input: OAuth2UpdateInput,
  origin: ChangeOrigin,
): Promise<OAuth2Configuration> {
  const body = validateUpdate(input);
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const config = await ownedConfig(trx, webmasterId, websiteId, environment, true);
    const status = body.status ?? config.status;
    const redirectUris = body.redirectUris && body.status !== 'DISABLED' ? body.redirectUris : config.redirect_uris;
    await trx('oauth2_configs')
      .where('id', config.id)
      .update({ status, redirect_uris: JSON.stringify(redirectUris), updated_at: now });
    const updated = { ...config, status, redirect_uris: redirectUris };
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'oauth2.updated',
      before: { environment, status: config.status, redirectUris: config.redirect_uris },
      after: { environment, status, redirectUris },
    });
    return present(trx, runtime, updated);
  });
}

/**
 * Regenerate OAuth2 credentials (docs/external-api.md): new credentials valid at once; the current pair stays valid for 24 hours;
 * an older pair still in its grace period ends now. The configuration row is locked, so two regenerations racing
 * run one after the other and leave one current pair and at most one in grace. Only while ACTIVE (rule 4).
 */
export async function regenerateOAuth2Credentials(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
  origin: ChangeOrigin,
): Promise<OAuth2Configuration> {
  return retriedTransaction(runtime.db, async (trx) => {
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const config = await ownedConfig(trx, webmasterId, websiteId, environment, true);
    if (config.status !== 'ACTIVE') {
      throw new Refusal(
        'conflict',
        'Client credentials can only be regenerated while the OAuth2 configuration is ACTIVE.',
      );
    }
    const now = runtime.clock.now();
    const previous = await trx('oauth2_credentials')
      .where('config_id', config.id)
      .whereNull('superseded_at')
      .first<{ client_id: string } | undefined>('client_id');
    await trx('oauth2_credentials')
      .where('config_id', config.id)
      .whereNotNull('superseded_at')
      .where('valid_until', '>', now)
      .update({ valid_until: now });
    await trx('oauth2_credentials')
      .where('config_id', config.id)
      .whereNull('superseded_at')
      .update({ superseded_at: now, valid_until: addSeconds(now, CREDENTIAL_GRACE_SECONDS) });
    await insertCredentials(trx, runtime, config, now);
    const configuration = await present(trx, runtime, config);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'oauth2.credentials.regenerated',
      before: { environment, clientId: previous?.client_id ?? null },
      after: { environment, clientId: configuration.clientId, clientSecret: SECRET_CHANGED },
    });
    return configuration;
  });
}
