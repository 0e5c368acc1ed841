import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { seeOther } from '../http/see-other.js';
import { mayDo, type Permission } from '../webmasters/roles.js';
import { PLATFORM_PATH, webmasterOf } from './authentication.js';
import { renderPage } from './page.js';

/**
 * What a route of the platform needs (docs/team.md): nothing (`public`: sign-in, registration, an invitation's page),
 * a signed-in webmaster whatever their accounts (`signed-in`: sign-out, choosing an account), or a permission of the
 * role they hold on the session's account (lib/webmasters/roles.ts).
 */
export type Access = 'public' | 'signed-in' | Permission;

export interface PlatformRoute {
  method: 'GET' | 'POST';
  /** the path below /platform, as koa-router matches it */
  path: string;
  access: Access;
}

type Handler = (ctx: Context) => Promise<void> | void;

/** Where a signed-in webmaster whose session has no account (removed from it, or it was disabled) chooses another. */
export const ACCOUNTS_PATH = `${PLATFORM_PATH}/accounts`;

/** Checks a route's access before its handler: strangers sign in, a role that lacks the permission gets 403. */
export function requireAccess(access: Access): Middleware {
  return async (ctx, next) => {
    if (access === 'public') return next();
    const webmaster = webmasterOf(ctx);
    if (!webmaster) return seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    if (access === 'signed-in') return next();
    if (!webmaster.account) return seeOther(ctx, ACCOUNTS_PATH, { noStore: true });
    if (!mayDo(webmaster.account.role, access))
      return renderPage(ctx, 'not-permitted.njk', { role: webmaster.account.role }, 403);
    await next();
  };
}

/**
 * A group of the platform's routes, each declared with the access it needs: the one place a route's permission is
 * written, checked before its handler, and listed in the route table the role property test drives
 * (test/platform/roles.test.ts), so a new route is covered without a new test.
 */
export class PlatformRoutes {
  readonly router = new Router();
  readonly table: PlatformRoute[] = [];

  get(path: string, access: Access, handler: Handler): this {
    return this.add('GET', path, access, handler);
  }

  post(path: string, access: Access, handler: Handler): this {
    return this.add('POST', path, access, handler);
  }

  private add(method: PlatformRoute['method'], path: string, access: Access, handler: Handler): this {
    this.table.push({ method, path, access });
    const check = requireAccess(access);
    const run: Middleware = async (ctx) => {
      await handler(ctx);
    };
    if (method === 'GET') this.router.get(path, check, run);
    else this.router.post(path, check, run);
    return this;
  }
}

/** The rows of a router whose every route is public (the sign-in flows): read from its own list of routes. */
export function publicRows(router: Router): PlatformRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods
      .filter((method): method is PlatformRoute['method'] => method === 'GET' || method === 'POST')
      .map((method) => ({ method, path: String(layer.path), access: 'public' as const })),
  );
}
