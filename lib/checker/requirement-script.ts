import type { Context } from 'koa';
import { requirementAt, type Requirement } from '../policy/resolve.js';
import type { CheckerServices } from './services.js';
import { findKeyWebsite } from '../websites/keys.js';
import { isAllowedOrigin } from './origins.js';
import { validRequirementQuery } from './requests.js';

/** What the script learns before it shows anything (docs/checker.md "The check"). */
type Answer =
  | { error: 'invalid_request' | 'invalid_key' | 'origin_not_allowed'; message: string }
  | (Requirement & { website: string; language: string; environment: string });

/**
 * The answer as a script calling back into the checker: loaded with a script element (`crossorigin`, so the browser
 * sends the page's Origin and no cookie), it needs nothing but `script-src` of our origin on the host page. The
 * callback name is fixed and nothing of the request is echoed, so the endpoint cannot serve as a JSONP gadget.
 */
function answerScript(ctx: Context, answer: Answer): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  ctx.vary('Origin');
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.body = `window.ageProvider&&window.ageProvider._requirement&&window.ageProvider._requirement(${JSON.stringify(answer)});`;
}

/**
 * GET /v1/checker/requirement.js?key=: the key is current, the page's origin may use it (LIVE: https on the website's
 * domain; TEST also http and loopback), and whether this visitor must verify (as GET /v1/requirement decides).
 * Errors the page must tell apart are answers (200) with `error`; a rate limit is a 429 the script reports as `unavailable`.
 */
export async function requirementScript(ctx: Context, runtime: CheckerServices): Promise<void> {
  const query = { ...ctx.query };
  if (!validRequirementQuery(query)) {
    answerScript(ctx, { error: 'invalid_request', message: 'the query must carry exactly one key parameter' });
    return;
  }
  const found = await findKeyWebsite(runtime.db, query.key);
  if (!found) {
    answerScript(ctx, { error: 'invalid_key', message: 'no website has this public key' });
    return;
  }
  const origin = ctx.get('Origin');
  if (!isAllowedOrigin(origin, found.website.domain, found.environment)) {
    answerScript(ctx, {
      error: 'origin_not_allowed',
      message: `this key may not be used from ${origin ? 'this origin' : 'a request without an Origin'}`,
    });
    return;
  }
  const location = await runtime.geo.locate(ctx);
  answerScript(ctx, {
    ...requirementAt(runtime, found.website, found.environment, location),
    website: found.website.name,
    language: found.website.language,
    environment: found.environment,
  });
}
