import type { Context } from 'koa';

export interface SeeOtherOptions {
  /** Keeps the answer out of every cache: pages behind a sign-in, or showing secrets, must not be replayed. */
  noStore?: boolean;
}

/** 303 See Other: the browser follows with a GET, so reloading the next page never repeats a form post. */
export function seeOther(ctx: Context, location: string, options: SeeOtherOptions = {}): void {
  ctx.status = 303;
  ctx.redirect(location);
  if (options.noStore) ctx.set('Cache-Control', 'no-store');
}
