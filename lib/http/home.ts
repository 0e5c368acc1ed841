import Router from '@koa/router';
import { browserLanguage } from '../i18n/negotiate.js';
import { render } from './render.js';

/** Where the home page points: every address is this service's own, so the page works on any operator's origin. */
export const HOME_LINKS = {
  platform: '/platform',
  metadata: '/.well-known/oauth-authorization-server',
  externalApi: '/external/openapi.json',
  checkerScript: '/v1/checker.js',
  status: '/readyz',
} as const;

/**
 * `/`: a small page saying, in the operator's branding and the browser's language, what this service is and where
 * webmasters, developers and monitoring go, so that a visitor or an operator who opens the bare address meets the
 * service rather than an error page.
 */
export function homeRoutes(): Router {
  const router = new Router();
  router.get('/', (ctx) => {
    render(ctx, 'home.njk', browserLanguage(ctx), { links: HOME_LINKS });
  });
  return router;
}
