import type Router from '@koa/router';
import type { Context } from 'koa';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import { MESSAGES } from './messages.js';
import { documentStart, escapeHtml } from './pages.js';
import type { RelyingPartySettings } from './settings.js';

/** A token is a few hundred bytes; anything much larger is not one. */
const MAX_BODY_BYTES = 8 * 1024;

/** Scripts from this site and from the age provider only; the page talks to this site's backend only. */
const scriptPageCsp = (provider: string): string =>
  `default-src 'none'; script-src 'self' ${provider}; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/**
 * The page of the script integration: one script tag of the age provider (it blurs the page and runs the
 * verification), this site's own script handing the token to the backend, and the content the backend releases.
 */
function scriptPage(settings: RelyingPartySettings): string {
  const m = MESSAGES[settings.language];
  const checker = `${settings.ageProviderUrl}/v1/checker.js?key=${encodeURIComponent(settings.publicKey)}`;
  return `${documentStart(settings)}
  <script src="/static/script-shop.js" defer></script>
  <script src="${escapeHtml(checker)}" async></script>
</head>
<body>
  <header class="site"><strong>${escapeHtml(m.title)}</strong></header>
  <main>
    <section id="locked" aria-labelledby="locked-heading">
      <h1 id="locked-heading">${escapeHtml(m.gateHeading)}</h1>
      <p>${escapeHtml(m.gateText)}</p>
    </section>
    <section id="unlocked" class="verified" aria-labelledby="unlocked-heading" hidden>
      <h1 id="unlocked-heading">${escapeHtml(m.verifiedHeading)}</h1>
      <p id="unlocked-content"></p>
    </section>
    <p><a href="/">${escapeHtml(m.back)}</a></p>
  </main>
</body>
</html>
`;
}

async function readJsonBody(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The backend's check of the token (docs/checker.md "Verifying the token"): signature against the provider's JWKS,
 * `typ`, `iss` the provider, `aud` this site's public key, `exp`, a verified result, and the environment of the key
 * (a TEST result never unlocks a LIVE site). Only then does the page get its content.
 */
export function scriptShopRoutes(router: Router, settings: RelyingPartySettings): void {
  const jwks = createRemoteJWKSet(new URL('/v1/oauth2/jwks', settings.ageProviderUrl));
  const environment = settings.publicKey.startsWith('pk_live_') ? 'LIVE' : 'TEST';
  const m = MESSAGES[settings.language];

  router.get('/script', (ctx) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', scriptPageCsp(new URL(settings.ageProviderUrl).origin));
    ctx.body = scriptPage(settings);
  });

  router.post('/script/unlock', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = await readJsonBody(ctx);
    const token = (body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'a token is required' };
      return;
    }
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: settings.ageProviderUrl,
        audience: settings.publicKey,
        typ: 'age-verification+jwt',
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      });
      if (payload.verified !== true || payload.environment !== environment)
        throw new joseErrors.JWTClaimValidationFailed('not a verified result of this environment', payload);
      ctx.body = { content: `${m.welcome} (${String(payload.uid)})` };
    } catch (error) {
      if (!(error instanceof joseErrors.JOSEError)) throw error;
      ctx.status = 401;
      ctx.body = { error: 'the token does not verify' };
    }
  });
}
