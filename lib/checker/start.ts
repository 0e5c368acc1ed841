import type { Context } from 'koa';
import { HttpError } from '../http/errors.js';
import { OAUTH2_PATHS, SCOPE } from '../oauth2/protocol.js';
import type { CheckerServices } from './services.js';
import { checkerCallbackUrl, checkerClientId } from './client.js';
import { findKeyWebsite } from '../websites/keys.js';
import { isAllowedOrigin } from './origins.js';
import { validStartQuery, type StartQuery } from './requests.js';
import { sealState } from './state.js';

const badRequest = (message: string): HttpError => new HttpError(400, message);

/** target=redirect comes back to a page of the same origin, never elsewhere. */
function returnTo(query: StartQuery): string | undefined {
  if (query.target !== 'redirect') return undefined;
  if (!query.return_to) throw badRequest('return_to is required with target=redirect');
  let url: URL;
  try {
    url = new URL(query.return_to);
  } catch {
    throw badRequest('return_to must be a URL');
  }
  if (url.origin !== query.origin) throw badRequest('return_to must be on the page origin');
  url.hash = '';
  return url.href;
}

/**
 * GET /v1/checker/start: the verification window's first page. Checks the key and the page origin again (the
 * window may outlive the page's check), seals where the result must go, and enters the authorization endpoint as
 * the key's internal client. Bad requests get the visitor error page.
 */
export async function startVerification(ctx: Context, runtime: CheckerServices): Promise<void> {
  const query = { ...ctx.query };
  if (!validStartQuery(query)) throw badRequest('the verification request is malformed');
  const found = await findKeyWebsite(runtime.db, query.key);
  if (!found) throw badRequest('no website has this public key');
  if (!isAllowedOrigin(query.origin, found.website.domain, found.environment))
    throw badRequest('this key may not be used from this origin');
  const back = returnTo(query);
  const authorization = new URL(OAUTH2_PATHS.authorization, runtime.config.issuer);
  const params = authorization.searchParams;
  params.set('client_id', checkerClientId(found.publicKey));
  params.set('response_type', 'code');
  params.set('scope', SCOPE);
  params.set('redirect_uri', checkerCallbackUrl(runtime.config.issuer));
  params.set(
    'state',
    sealState(runtime, {
      publicKey: found.publicKey,
      origin: query.origin,
      target: query.target,
      ...(back ? { returnTo: back } : {}),
    }),
  );
  if (query.language) params.set('language', query.language);
  if (query.challenges) params.set('challenges', query.challenges);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(authorization.href);
}
