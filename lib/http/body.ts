import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';

/** The methods koa-body parses by default; any other request is handed on without calling it (nothing to parse). */
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const parsing =
  (parse: Middleware): Middleware =>
  (ctx, next) =>
    PARSED_METHODS.has(ctx.method) ? parse(ctx, next) : next();

/** Parses an HTML form post (urlencoded only; no multipart, no files). */
export const formBody = (limit = '32kb'): Middleware =>
  parsing(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: limit }));

/** Parses a JSON body strictly (objects and arrays only); over `limit` is 413. */
export const jsonBody = (limit = '64kb'): Middleware =>
  parsing(
    koaBody({ urlencoded: false, json: true, jsonStrict: true, text: false, multipart: false, jsonLimit: limit }),
  );
