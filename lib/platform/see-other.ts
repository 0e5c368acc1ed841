import type { Context } from 'koa';

/** Post/redirect/get: a successful form post answers 303 so reloading the next page never posts again. */
export function seeOther(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
  ctx.set('Cache-Control', 'no-store');
}
