import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { HttpError } from './errors.js';
import { errorShapeOf } from './surface-errors.js';

/**
 * What a stranger may send in a query (documented in docs/configuration.md, "Input limits"). An authorization
 * request's parameters are stored with its interaction for an hour, so these bound what one address can make us
 * keep: the per-address authorization ceiling × QUERY_BYTES × one hour.
 */
export const INPUT_LIMITS = {
  /** the whole query string, as sent (percent-encoded) */
  queryBytes: 8 * 1024,
  /** any one query parameter's name or decoded value */
  valueLength: 2048,
  /** the most body the guard reads to check; every surface's own limit is lower (oidc-provider 56 KiB, External API 64 KiB) */
  bodyBytes: 256 * 1024,
  /** arrays and objects nested in a JSON body; no request of any surface needs more than a few */
  jsonDepth: 64,
} as const;

/** C0 controls (NUL included), DEL and C1 controls: never meaningful in a parameter, fatal to PostgreSQL text (NUL). */
// oxlint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
/** In a body, a text area may carry line breaks and tabs. */
// oxlint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_IN_BODY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

class BadInput extends Error {
  override name = 'BadInput';
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** Decodes one application/x-www-form-urlencoded component; bad percent-encoding or invalid UTF-8 is bad input. */
function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new BadInput(400, 'a parameter is not valid percent-encoded UTF-8');
  }
}

function checkText(text: string, control: RegExp, what: string): void {
  if (control.test(text)) throw new BadInput(400, `${what} contains a control character`);
}

/** Every name and value of an urlencoded string: valid UTF-8, no control characters, optionally at most `maxLength`. */
function checkEncoded(encoded: string, control: RegExp, what: string, maxLength?: number): void {
  for (const pair of encoded.split('&')) {
    if (pair === '') continue;
    for (const part of pair.split('=')) {
      const text = decodeComponent(part);
      checkText(text, control, what);
      if (maxLength !== undefined && text.length > maxLength) {
        throw new BadInput(400, `a query parameter is longer than ${maxLength} characters`);
      }
    }
  }
}

function checkQuery(ctx: Context): void {
  checkText(decodeComponent(ctx.path), CONTROL, 'the path');
  const query = ctx.querystring;
  if (Buffer.byteLength(query) > INPUT_LIMITS.queryBytes)
    throw new BadInput(400, `the query is longer than ${INPUT_LIMITS.queryBytes} bytes`);
  checkEncoded(query, CONTROL, 'a query parameter', INPUT_LIMITS.valueLength);
}

/** Client credentials in a Basic header become a client_id lookup: the same rules as a form field. */
function checkBasicCredentials(ctx: Context): void {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(ctx.get('Authorization'));
  if (!match) return;
  let credentials: string;
  try {
    credentials = strictUtf8.decode(Buffer.from(match[1] ?? '', 'base64'));
  } catch {
    throw new BadInput(400, 'the Basic credentials are not valid UTF-8');
  }
  // RFC 6749 §2.3.1: each half is form-urlencoded before base64.
  for (const half of credentials.split(':')) checkText(decodeComponent(half), CONTROL, 'the Basic credentials');
}

/**
 * How deep a JSON text nests, counted over its characters (brackets inside strings are text): a loop, not a
 * recursion, so no depth overflows a stack, and it runs before JSON.parse and the walk below, which then stay shallow.
 * Stops counting as soon as the limit is passed.
 */
function checkJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1; // a backslash escapes the next character (a quote among them)
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > INPUT_LIMITS.jsonDepth)
        throw new BadInput(400, `the JSON body is nested deeper than ${INPUT_LIMITS.jsonDepth} levels`);
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
}

function checkJsonStrings(value: unknown): void {
  if (typeof value === 'string') checkText(value, CONTROL_IN_BODY, 'a JSON string');
  else if (Array.isArray(value)) value.forEach(checkJsonStrings);
  else if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      checkText(key, CONTROL_IN_BODY, 'a JSON member name');
      checkJsonStrings(member);
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req) {
    received += (chunk as Buffer).length;
    if (received > INPUT_LIMITS.bodyBytes) throw new BadInput(413, 'the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, received);
}

/**
 * Hands the bytes the guard read to whichever parser the surface uses (koa-body, oidc-provider's own) as if they
 * were still unread: a stream of its own state over the same request (headers, socket and method are inherited).
 */
function replayBody(ctx: Context, body: Buffer): void {
  const replay = Object.create(ctx.req) as IncomingMessage;
  (Readable as unknown as { call(self: unknown): void }).call(replay);
  replay._read = () => {};
  replay._destroy = (error, callback) => callback(error);
  replay.push(body);
  replay.push(null);
  ctx.req = replay;
  ctx.request.req = replay;
}

/** The body's type when the guard must read it (a form or JSON), else undefined: nothing to read. */
function checkedBodyType(ctx: Context): string | undefined {
  return ctx.request.is('application/x-www-form-urlencoded', 'application/json') || undefined;
}

async function checkBody(ctx: Context, type: string): Promise<void> {
  if ((ctx.request.length ?? 0) > INPUT_LIMITS.bodyBytes) throw new BadInput(413, 'the request body is too large');
  const body = await readBody(ctx.req);
  replayBody(ctx, body);
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new BadInput(400, 'the request body is not valid UTF-8');
  }
  if (type === 'application/x-www-form-urlencoded') return checkEncoded(text, CONTROL_IN_BODY, 'a form field');
  checkJsonDepth(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return; // malformed JSON: the surface answers it in its own words
  }
  checkJsonStrings(parsed);
}

/** Bad input, as an error the claiming surface answers in its own shape (the External API's words differ). */
function refusal(ctx: Context, problem: unknown): unknown {
  if (!(problem instanceof BadInput)) return problem;
  const message = errorShapeOf(ctx) === 'external' ? `Request invalid: ${problem.message}.` : problem.message;
  return new HttpError(problem.status, message, {}, 'invalid_request');
}

/**
 * Runs before any surface, so before any query: rejects NUL, other control characters and invalid UTF-8 in the
 * path, every query parameter and every urlencoded or JSON body field, and queries,
 * values or JSON nesting over INPUT_LIMITS, with the surface's own 400 (413 for a body too large to check). A request without such
 * a body is checked synchronously and handed on at once (its chain, lib/app/surfaces.ts, turns a throw into a rejection).
 */
export function inputGuard(): Middleware {
  return (ctx, next) => {
    let type: string | undefined;
    try {
      checkQuery(ctx);
      type = checkedBodyType(ctx);
    } catch (error) {
      throw refusal(ctx, error);
    }
    if (type === undefined) return next();
    // oxlint-disable-next-line promise/no-callback-in-promise -- next is Koa's continuation, not a Node callback
    return checkBody(ctx, type).then(next, (error: unknown) => {
      throw refusal(ctx, error);
    });
  };
}

/**
 * Where a client authenticates (token, introspection, revocation), its Basic credentials follow the guard's rules
 * with the back channel's 400. Only there: elsewhere a Basic header is a credential of the wrong scheme, which the
 * endpoint answers itself (Resources: 401 with a Bearer challenge, RFC 6750).
 */
export function clientCredentialsGuard(): Middleware {
  return (ctx, next) => {
    try {
      checkBasicCredentials(ctx);
    } catch (error) {
      throw refusal(ctx, error);
    }
    return next();
  };
}
