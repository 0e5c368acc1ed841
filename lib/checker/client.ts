import { createHmac, hkdfSync } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import { SCOPE } from '../oauth2/protocol.js';
import type { CheckerServices } from './services.js';
import { CHECKER_CLIENT_PREFIX, type ClientWebsite } from '../websites/clients.js';
import { findKeyWebsite } from '../websites/keys.js';
import { CHECKER_PATHS } from './paths.js';

/**
 * Each website public key has an internal OAuth2 client, so the script's verification runs on the same interaction
 * pages as any OAuth2 client's (docs/decisions/checker.md "Checker script"). Its client_id is the key behind a prefix
 * (websites/clients.ts, beside the rule deciding whether it resolves).
 */
const PREFIX = CHECKER_CLIENT_PREFIX;

export const checkerClientId = (publicKey: string): string => PREFIX + publicKey;

export const isCheckerClientId = (clientId: string): boolean => clientId.startsWith(PREFIX);

const publicKeyOf = (clientId: string): string => clientId.slice(PREFIX.length);

/** The website behind an internal client's key, through the instance's client cache (a regenerated key empties it). */
const keyWebsiteOf = (runtime: CheckerServices, clientId: string) =>
  runtime.clients.get(`checker:${clientId}`, async () => ({
    value: await findKeyWebsite(runtime.db, publicKeyOf(clientId)),
  }));

export const checkerCallbackUrl = (issuer: string): string => new URL(CHECKER_PATHS.callback, issuer).href;

/**
 * The internal client's secret: derived from the sealing key (HKDF, then HMAC of the client_id), never stored and
 * never shown. Nobody presents it: the callback consumes the code itself; the provider only requires a secret-based
 * client to have one.
 */
function derivedSecret(sealingKey: Buffer, clientId: string): string {
  const key = Buffer.from(hkdfSync('sha256', sealingKey, Buffer.alloc(0), 'age-provider checker client secret', 32));
  return createHmac('sha256', key).update(clientId).digest('base64url');
}

/** oidc-provider metadata for an internal client, or undefined when its key is not current. */
export async function checkerClientMetadata(
  runtime: CheckerServices,
  clientId: string,
): Promise<AdapterPayload | undefined> {
  const found = await keyWebsiteOf(runtime, clientId);
  if (!found) return undefined;
  return {
    client_id: clientId,
    client_secret: derivedSecret(runtime.config.sealingKey, clientId),
    client_name: found.website.name,
    redirect_uris: [checkerCallbackUrl(runtime.config.issuer)],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: SCOPE,
    environment: found.environment,
  };
}

/** The interaction pages' view of an internal client (its redirect is our own callback, so none is listed). */
export async function findCheckerClientWebsite(
  runtime: CheckerServices,
  clientId: string,
): Promise<ClientWebsite | undefined> {
  const found = await keyWebsiteOf(runtime, clientId);
  return found ? { clientId, environment: found.environment, redirectUris: [], website: found.website } : undefined;
}
