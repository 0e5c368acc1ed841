import Router from '@koa/router';
import { Ajv, type JSONSchemaType } from 'ajv';
import type { Context, Middleware } from 'koa';
import { testLocation } from '../geo/codes.js';
import type { Location } from '../geo/location.js';
import { HttpError } from '../http/errors.js';
import { requirementAt } from '../policy/resolve.js';
import type { RequirementServices } from './services.js';
import type { SurfaceBuilder } from '../http/surface.js';
import { findKeyWebsite } from '../websites/keys.js';
import { policiesRoutes } from './policies.js';
import { createRequirementSigner } from './token.js';

export const REQUIREMENT_PATH = '/v1/requirement';
const JWT_TYPE = 'application/jwt';

interface RequirementQuery {
  key: string;
  /** TEST keys only: answer for this country instead of the caller's (the sandbox, docs/geolocation.md) */
  test_country?: string;
  /** TEST keys only, with test_country: `TX` or `US-TX` */
  test_subdivision?: string;
}

// Extra query parameters (cache busters) are ignored; a repeated parameter arrives as an array and is rejected.
const queryShape: JSONSchemaType<RequirementQuery> = {
  type: 'object',
  required: ['key'],
  properties: {
    key: { type: 'string', minLength: 1 },
    test_country: { type: 'string', nullable: true, maxLength: 2 },
    test_subdivision: { type: 'string', nullable: true, maxLength: 6 },
  },
};
const validQuery = new Ajv({ allErrors: false }).compile(queryShape);
/** Public keys are URL-safe tokens; anything else cannot be one, so it is not looked up. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/** Errors are RFC 6749-style JSON; `not_found` (404) and `too_many_requests` (429) extend its vocabulary. */
const invalidRequest = (description: string): HttpError => new HttpError(400, description, {}, 'invalid_request');

/** Any website's page may read the answer; no credentials are involved, so `*` is safe. */
const allowAnyOrigin = (ctx: Context): void => {
  ctx.set('Access-Control-Allow-Origin', '*');
};

async function resolveLocation(
  ctx: Context,
  runtime: RequirementServices,
  query: RequirementQuery,
  environment: 'LIVE' | 'TEST',
): Promise<Location> {
  if (query.test_country === undefined && query.test_subdivision === undefined) return runtime.geo.locate(ctx);
  if (environment !== 'TEST')
    throw invalidRequest('test_country and test_subdivision are accepted with a TEST key only');
  const location = testLocation(query.test_country, query.test_subdivision);
  if (location === 'country') throw invalidRequest('test_country must be an ISO 3166-1 alpha-2 country code');
  if (location === 'subdivision')
    throw invalidRequest(
      `test_subdivision must be an ISO 3166-2 subdivision of ${String(query.test_country).trim().toUpperCase()}`,
    );
  return location;
}

/**
 * GET /v1/requirement?key=<website public key>: whether the website must verify the caller, where the caller is, and the
 * age to prove there, with the challenges the caller would be offered and the minimum level, as the website's policy
 * there says (docs/policies.md). Public, for a website's own page script: CORS for any origin without credentials,
 * cached privately for a minute (the answer depends on the caller's location), rate-limited per IP. The surface also
 * serves GET /v1/policies (policies.ts).
 */
export const requirementSurface: SurfaceBuilder<RequirementServices> = ({ runtime }) => {
  const limiter = runtime.rateLimits.limiter('requirement');
  const signRequirement = createRequirementSigner(runtime);
  const router = new Router();

  router.options(REQUIREMENT_PATH, (ctx) => {
    allowAnyOrigin(ctx);
    ctx.set('Access-Control-Allow-Methods', 'GET');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.status = 204;
  });

  router.get(REQUIREMENT_PATH, async (ctx) => {
    allowAnyOrigin(ctx);
    // Errors are thrown: the surface answers them in OAuth2 JSON (lib/http/oauth-errors.ts).
    await limiter.consume(ctx.ip);
    const query = { ...ctx.query };
    if (!validQuery(query)) {
      const field = validQuery.errors?.[0]?.instancePath.slice(1) || 'key';
      throw invalidRequest(
        field === 'key' ? 'the query must carry exactly one key parameter' : `${field} is malformed`,
      );
    }
    const found = KEY_SHAPE.test(query.key) ? await findKeyWebsite(runtime.db, query.key) : undefined;
    if (!found) throw new HttpError(404, 'no website has this public key', {}, 'not_found');
    const location = await resolveLocation(ctx, runtime, query, found.environment);
    const requirement = requirementAt(runtime, found.website, found.environment, location);
    if (runtime.geo.headers.length > 0) ctx.vary(runtime.geo.headers.join(', '));
    ctx.vary('Accept');
    if (ctx.accepts('application/json', JWT_TYPE) === JWT_TYPE) {
      // A signed answer for the website's server (docs/geolocation.md "Signed answer"): each one is fresh.
      ctx.set('Cache-Control', 'no-store');
      ctx.type = JWT_TYPE;
      ctx.body = await signRequirement(
        {
          required: requirement.required,
          country: requirement.country,
          country_subdivision: requirement.country_subdivision,
          age_threshold: requirement.age_threshold,
          environment: found.environment,
        },
        query.key,
      );
      return;
    }
    ctx.set('Cache-Control', 'private, max-age=60');
    ctx.body = requirement;
  });
  return [router.routes() as Middleware, policiesRoutes(runtime).routes() as Middleware];
};
