import type { Middleware } from 'koa';
import { HttpError } from '../http/errors.js';
import type { ExternalServices } from './services.js';
import { authenticateApiToken } from '../webmasters/api-tokens.js';

/** What the authentication leaves on ctx.state for the handlers. */
export interface ExternalState {
  /** the key's account: every query filters by it (websites.webmaster_id) */
  webmasterId: number;
  /** the key's id: the audit trail names the key that made a change */
  tokenId: number;
  /** whether the key may change anything (a read-write key of a member who still may) */
  write: boolean;
  /** the one website the key is for; null: every website of the account */
  keyWebsiteId: number | null;
}

const unauthorized = (message: string): HttpError => new HttpError(401, message, { 'WWW-Authenticate': 'Bearer' });

/** `Authorization: Bearer <API key>` on every operation; the key's account and scope go to ctx.state. */
export function authenticate(runtime: ExternalServices): Middleware<ExternalState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (!header) throw unauthorized('Missing API token: send the header "Authorization: Bearer <API token>".');
    const token = /^Bearer +([^ ]+) *$/i.exec(header)?.[1];
    if (!token) throw unauthorized('Malformed Authorization header: expected "Bearer <API token>".');
    const key = await authenticateApiToken(runtime.db, runtime.clock, token);
    if (key === undefined) throw unauthorized('Invalid, expired or revoked API token.');
    ctx.state.webmasterId = key.accountId;
    ctx.state.tokenId = key.tokenId;
    ctx.state.write = key.write;
    ctx.state.keyWebsiteId = key.websiteId;
    await next();
  };
}
