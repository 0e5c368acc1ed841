import Router from '@koa/router';
import { HttpError } from '../http/errors.js';
import type { RequirementServices } from './services.js';

export const POLICIES_PATH = '/v1/policies';

/**
 * GET /v1/policies: what the operator promises every website's visitors, for websites and auditors (docs/policies.md):
 * the default age and the ages per region, and every preset in force with its rules and their sources. Public and
 * the same for everyone until the operator restarts with other settings.
 */
export function policiesRoutes(runtime: RequirementServices): Router {
  const limiter = runtime.rateLimits.limiter('requirement');
  const { config } = runtime;
  const body = JSON.stringify({
    ageThreshold: config.ageThreshold,
    ageThresholds: config.geo.ageThresholds,
    presets: config.policies.presets,
  });
  const router = new Router();
  router.get(POLICIES_PATH, async (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    await limiter.consume(ctx.ip);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = body;
  });
  // Registered after GET, so it answers only the other methods.
  router.all(POLICIES_PATH, () => {
    throw new HttpError(405, 'only GET reads the policies', { Allow: 'GET, HEAD' }, 'invalid_request');
  });
  return router;
}
