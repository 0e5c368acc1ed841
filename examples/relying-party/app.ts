import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { packageRoot } from '../../lib/paths.js';
import {
  authorizationUrl,
  exchangeCode,
  isVerification,
  newAttempt,
  ProviderError,
  readVerification,
  stateMatches,
  type Attempt,
  type Verification,
} from './oauth2-client.js';
import { homePage, problemPage, type Problem } from './pages.js';
import { scriptShopRoutes } from './script-shop.js';
import type { RelyingPartySettings } from './settings.js';

const ATTEMPT_COOKIE = 'rp_attempt';
const RESULT_COOKIE = 'rp_result';
/** "The visitor declined or cancelled": shown by the home page in the shop's window after the popup closes. */
const DECLINED_COOKIE = 'rp_declined';
const DECLINED_LIFETIME_MS = 5 * 60 * 1000;
const ATTEMPT_LIFETIME_MS = 10 * 60 * 1000;

const STATIC_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** The site's own scripts and stylesheet, read once (no request path ever reaches the file system). */
function staticFiles(): Map<string, { body: Buffer; type: string }> {
  const folder = join(packageRoot, 'examples', 'relying-party', 'static');
  return new Map(
    readdirSync(folder)
      .filter((name) => STATIC_TYPES[extname(name)])
      .map((name) => [
        `/static/${name}`,
        { body: readFileSync(join(folder, name)), type: STATIC_TYPES[extname(name)]! },
      ]),
  );
}

/** Our own scripts only; images and the requirement call may reach the age provider, nothing else. */
const contentSecurityPolicy = (settings: RelyingPartySettings): string => {
  const provider = new URL(settings.ageProviderUrl).origin;
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' ${provider}; connect-src ${provider}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
};

const cookieOptions = (ctx: Context) => ({
  signed: true,
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: ctx.secure,
  overwrite: true,
});

function readCookieJson<T>(ctx: Context, name: string, accept: (value: unknown) => value is T): T | undefined {
  const raw = ctx.cookies.get(name, { signed: true });
  if (!raw) return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    return accept(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const writeCookieJson = (ctx: Context, name: string, value: unknown, maxAge: number): void => {
  ctx.cookies.set(name, Buffer.from(JSON.stringify(value)).toString('base64url'), { ...cookieOptions(ctx), maxAge });
};

const isAttempt = (value: unknown): value is Attempt =>
  typeof (value as Attempt | null)?.state === 'string' && typeof (value as Attempt).codeVerifier === 'string';

const queryString = (ctx: Context, name: string): string | undefined => {
  const value = ctx.query[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 2048 ? value : undefined;
};

/** The demo website: an age gate with the "Verify my age" button, and the OAuth2 callback that reads the result. */
export function createRelyingPartyApp(settings: RelyingPartySettings): Koa {
  const app = new Koa({
    keys: settings.cookieKeys.length > 0 ? settings.cookieKeys : [randomBytes(32).toString('base64url')],
  });
  app.silent = true;
  const files = staticFiles();
  const csp = contentSecurityPolicy(settings);
  const router = new Router();

  const html = (ctx: Context, body: string, status = 200) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', csp);
    ctx.body = body;
  };
  const problem = (ctx: Context, kind: Problem, status: number) => html(ctx, problemPage(settings, kind), status);

  router.get('/', (ctx) => {
    const verification = readCookieJson<Verification>(ctx, RESULT_COOKIE, isVerification);
    const declined = ctx.cookies.get(DECLINED_COOKIE, { signed: true }) === '1';
    html(ctx, homePage(settings, verification, ctx.query.attempt === 'done', declined));
  });

  // A fresh state and PKCE verifier per attempt, remembered in a signed HttpOnly cookie, then off to the provider.
  router.get('/verify', (ctx) => {
    const attempt = newAttempt();
    writeCookieJson(ctx, ATTEMPT_COOKIE, attempt, ATTEMPT_LIFETIME_MS);
    ctx.cookies.set(DECLINED_COOKIE, null, cookieOptions(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(authorizationUrl(settings, attempt));
  });

  router.get('/callback', async (ctx) => {
    const attempt = readCookieJson<Attempt>(ctx, ATTEMPT_COOKIE, isAttempt);
    ctx.cookies.set(ATTEMPT_COOKIE, null, cookieOptions(ctx)); // single use, whatever happens next
    const state = queryString(ctx, 'state');
    if (!attempt || !state || !stateMatches(attempt.state, state)) return problem(ctx, 'stateMismatch', 400);
    // RFC 9207: the provider names itself in `iss`; an answer from another authorization server is refused.
    const issuer = queryString(ctx, 'iss');
    if (issuer !== undefined && issuer !== settings.ageProviderUrl) return problem(ctx, 'providerFailed', 502);
    // Declined or cancelled: like a result, the outcome goes to the home page, which the popup hands to the shop's window.
    if (ctx.query.error === 'access_denied') {
      ctx.cookies.set(DECLINED_COOKIE, '1', { ...cookieOptions(ctx), maxAge: DECLINED_LIFETIME_MS });
      ctx.status = 303;
      return ctx.redirect('/?attempt=done');
    }
    const code = queryString(ctx, 'code');
    if (!code) return problem(ctx, 'providerFailed', 502);
    let verification: Verification;
    try {
      verification = await readVerification(settings, await exchangeCode(settings, attempt, code));
    } catch (error) {
      if (
        !(error instanceof ProviderError) &&
        !(error instanceof TypeError) &&
        (error as Error).name !== 'TimeoutError'
      )
        throw error;
      console.error(`relying party: ${(error as Error).message}`);
      return problem(ctx, 'providerFailed', 502);
    }
    writeCookieJson(ctx, RESULT_COOKIE, verification, Math.max(verification.expires_in, 0) * 1000);
    ctx.status = 303;
    ctx.redirect('/?attempt=done');
  });

  scriptShopRoutes(router, settings);

  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    await next();
  });
  app.use(async (ctx, next) => {
    const file = ctx.method === 'GET' || ctx.method === 'HEAD' ? files.get(ctx.path) : undefined;
    if (!file) return next();
    ctx.type = file.type;
    ctx.body = file.body;
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
