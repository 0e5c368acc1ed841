import type { Context } from 'koa';
import type { JWKS } from 'oidc-provider';

/** The members of a public JWK the page needs to check a signature; every private member stays out. */
const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'use', 'n', 'e', 'crv', 'x', 'y'] as const;

/** The provider's public signing keys, as its JWKS endpoint publishes them. */
function publicSigningKeys(jwks: JWKS): { keys: Array<Record<string, unknown>> } {
  const keys = (jwks.keys as Array<Record<string, unknown>>)
    .filter((key) => key.use !== 'enc')
    .map((key) =>
      Object.fromEntries(
        PUBLIC_MEMBERS.filter((member) => key[member] !== undefined).map((member) => [member, key[member]]),
      ),
    );
  return { keys };
}

/**
 * GET /v1/checker/keys.js: the public signing keys as a script calling back into the checker, which checks a token
 * that came in the page address's fragment before it reports success (docs/checker.md "Where the result comes from").
 * A script, like the requirement's answer, so the host page needs no `connect-src` for our origin; the callback name
 * is fixed and nothing of the request is echoed.
 */
export function serveKeysScript(jwks: JWKS) {
  const body = `window.ageProvider&&window.ageProvider._keys&&window.ageProvider._keys(${JSON.stringify(publicSigningKeys(jwks))});`;
  return (ctx: Context): void => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = body;
  };
}
