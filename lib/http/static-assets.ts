import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Middleware } from 'koa';
import { viewsDir } from '../paths.js';

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Serves views/static/* at /static/* from memory: a fixed set read at start-up, so no path ever reaches the file system. */
export function staticAssets(prefix = '/static/'): Middleware {
  const folder = join(viewsDir, 'static');
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[extname(name)];
    if (type) files.set(prefix + name, { body: readFileSync(join(folder, name)), type });
  }
  return async (ctx, next) => {
    const file = ctx.method === 'GET' || ctx.method === 'HEAD' ? files.get(ctx.path) : undefined;
    if (!file) return next();
    ctx.type = file.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = file.body;
  };
}
