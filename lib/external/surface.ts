import Router, { type RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import { jsonBody } from '../http/body.js';
import { HttpError } from '../http/errors.js';
import { rateLimit } from '../http/rate-limit.js';
import type { ExternalServices } from './services.js';
import type { SurfaceBuilder } from '../http/surface.js';
import { authenticate, type ExternalState } from './authenticate.js';
import { openApiDocument } from './openapi.js';
import { OPERATIONS, type Call, type Operation } from './operations.js';
import { pathValues } from './path-values.js';
import { externalLimiters } from './rate-limits.js';
import { BODY_LIMIT_KIB, EXTERNAL_PREFIX } from './paths.js';

interface RouteState extends ExternalState {
  path: ReturnType<typeof pathValues>;
}

const isExternalPath = (path: string): boolean => path === EXTERNAL_PREFIX || path.startsWith(`${EXTERNAL_PREFIX}/`);

/**
 * A body, when sent, must be JSON (415 otherwise); koa's is() answers null when there is no body at all. An operation
 * whose body is optional also takes an empty one (a POST with `Content-Length: 0`, as most clients send without a body).
 */
const requireJson =
  (optional: boolean): RouterMiddleware<RouteState> =>
  async (ctx, next) => {
    if (ctx.request.is('application/json') === false && !(optional && !ctx.request.length))
      throw new HttpError(415, 'Send the request body as application/json.');
    await next();
  };

/**
 * The key's scope against the operation (docs/external-api.md "API keys"): a read-only key changes nothing (403), a
 * key for one website reaches no other (403) and creates none. Listing the websites with such a key lists its one.
 */
function checkScope(operation: Operation, state: RouteState): void {
  if (operation.access === 'change' && !state.write)
    throw new HttpError(403, 'This API key is read-only: it cannot change anything.');
  if (state.keyWebsiteId === null) return;
  const websiteId = 'websiteId' in state.path ? (state.path as { websiteId: number }).websiteId : undefined;
  if (websiteId === undefined ? operation.operationId !== 'listWebsites' : websiteId !== state.keyWebsiteId) {
    throw new HttpError(403, `This API key is for website ${state.keyWebsiteId} only.`);
  }
}

/** What an operation answers to this key: the answer, without its secrets for a key that may not see them. */
function answerFor(operation: Operation, state: RouteState, answer: unknown): unknown {
  let shown = answer;
  if (operation.operationId === 'listWebsites' && state.keyWebsiteId !== null) {
    shown = (answer as Array<{ id: number }>).filter((website) => website.id === state.keyWebsiteId);
  }
  return !state.write && operation.withoutSecrets ? operation.withoutSecrets(shown) : shown;
}

/**
 * The Webmaster External API under /external: its own router, its own error shape, rate limits per
 * address (before authentication) and per token (after), every operation authenticated by API token.
 */
export const externalSurface: SurfaceBuilder<ExternalServices> = ({ runtime }) => {
  const limiters = externalLimiters(runtime);
  const router = new Router<RouteState>({ prefix: EXTERNAL_PREFIX });
  const openApi = openApiDocument();
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  const steps = [
    authenticate(runtime),
    rateLimit(limiters.perToken, (ctx) => `webmaster:${String((ctx.state as ExternalState).webmasterId)}`),
  ] as RouterMiddleware<RouteState>[];
  const parse = jsonBody(`${BODY_LIMIT_KIB}kb`) as RouterMiddleware<RouteState>;
  // Parses with a no-op `next`, so only the parser's own 400s (malformed JSON) get the clearer message.
  const parseJson: RouterMiddleware<RouteState> = async (ctx, next) => {
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      if ((error as { status?: unknown }).status === 400)
        throw new HttpError(400, `Malformed JSON body: ${(error as Error).message}`);
      throw error;
    }
    await next();
  };
  for (const operation of OPERATIONS) {
    router[operation.method](
      operation.path,
      ...steps,
      async (ctx, next) => {
        ctx.state.path = pathValues(operation.scope, ctx.params);
        checkScope(operation, ctx.state);
        await next();
      },
      ...(operation.body ? [requireJson(operation.bodyOptional === true), parseJson] : []),
      async (ctx) => {
        const origin = { actor: { type: 'api_token', id: ctx.state.tokenId }, address: ctx.ip } as const;
        const call = {
          runtime,
          webmasterId: ctx.state.webmasterId,
          origin,
          body: ctx.request.body,
          query: { ...ctx.query },
          ...ctx.state.path,
        } as Call<typeof operation.scope>;
        const answer = await operation.run(call);
        ctx.status = operation.status ?? 200;
        if (operation.status !== 204) ctx.body = answerFor(operation, ctx.state, answer);
      },
    );
  }
  const routes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  const perIp = rateLimit(limiters.perIp, (ctx) => ctx.ip);
  // Errors are answered by the surface's jsonErrors (lib/app/surfaces.ts), around this and the guards in front of it.
  const serve: Middleware = async (ctx, next) => {
    if (!isExternalPath(ctx.path)) return next();
    ctx.set('Cache-Control', 'no-store');
    await perIp(ctx, () => allowedMethods(ctx, () => routes(ctx, async () => {})));
  };
  return [serve];
};
