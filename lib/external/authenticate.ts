import type { Middleware } from 'koa';
import { HttpError } from '../http/errors.js';
import type { ExternalServices } from './services.js';
import { authenticateApiToken } from '../webmasters/api-tokens.js';

/** What the authentication leaves on ctx.state for the handlers. */
export interface ExternalState {
  webmasterId: number;
  /** the token's id: the audit trail names the token that made a change */
  tokenId: number;
}

const unauthorized = (message: string): HttpError => new HttpError(401, message, { 'WWW-Authenticate': 'Bearer' });

/** `Authorization: Bearer <API token>` on every operation; the webmaster id goes to ctx.state. */
export function authenticate(runtime: ExternalServices): Middleware<ExternalState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (!header) throw unauthorized('Missing API token: send the header "Authorization: Bearer <API token>".');
    const token = /^Bearer +([^ ]+) *$/i.exec(header)?.[1];
    if (!token) throw unauthorized('Malformed Authorization header: expected "Bearer <API token>".');
    const authenticated = await authenticateApiToken(runtime.db, runtime.clock, token);
    if (authenticated === undefined) throw unauthorized('Invalid or revoked API token.');
    ctx.state.webmasterId = authenticated.webmasterId;
    ctx.state.tokenId = authenticated.tokenId;
    await next();
  };
}
