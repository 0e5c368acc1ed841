import type { CheckerServices } from './services.js';
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { SurfaceBuilder } from '../http/surface.js';
import { checkerCallback } from './callback.js';
import { CHECKER_PATHS } from './paths.js';
import { serveKeysScript } from './keys-script.js';
import { requirementScript } from './requirement-script.js';
import { buildCheckerScript, serveCheckerScript } from './script.js';
import { startVerification } from './start.js';
import { createVerificationSigner } from './verification-token.js';

/**
 * The checker script surface (docs/checker.md): the script, its check, and the verification window's entry and
 * return. Everything a stranger can call with a public key shares one per-IP limit; the script itself is static.
 */
export const checkerSurface: SurfaceBuilder<CheckerServices> = ({ runtime, provider }) => {
  const limiter = runtime.rateLimits.limiter('checker');
  const limited = async (ctx: Context, next: Next): Promise<void> => {
    await limiter.consume(ctx.ip);
    await next();
  };
  const signer = createVerificationSigner(runtime);
  const router = new Router();
  router.get(CHECKER_PATHS.script, serveCheckerScript(buildCheckerScript()));
  router.get(CHECKER_PATHS.keys, serveKeysScript(runtime.config.jwks));
  router.get(CHECKER_PATHS.requirement, limited, (ctx) => requirementScript(ctx, runtime));
  router.get(CHECKER_PATHS.start, limited, (ctx) => startVerification(ctx, runtime));
  router.get(CHECKER_PATHS.callback, limited, (ctx) => checkerCallback(ctx, runtime, provider, signer));
  return [router.routes() as Middleware];
};
