import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';

/** Parses an HTML form post (urlencoded only; no multipart, no files). */
export const formBody = (limit = '32kb'): Middleware =>
  koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: limit });

/** Parses a JSON body strictly (objects and arrays only); over `limit` is 413. */
export const jsonBody = (limit = '64kb'): Middleware =>
  koaBody({ urlencoded: false, json: true, jsonStrict: true, text: false, multipart: false, jsonLimit: limit });
