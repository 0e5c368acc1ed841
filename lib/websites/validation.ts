import { domainToASCII, domainToUnicode } from 'node:url';
import { Ajv, type ErrorObject, type SchemaObject } from 'ajv';
import { isRegionCode } from '../geo/codes.js';
import { Refusal } from '../refusal.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
// At least two labels; the last starts with a letter, which rules out IPv4 addresses.
const HOST_NAME = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);

/**
 * Punycode labels must decode to a valid IDN and encode back to themselves. Node 20's domainToASCII refuses a label
 * that does not decode, Node 24's returns it unchanged, so each xn-- label is also checked to have decoded at all.
 */
function punycodeDecodes(value: string): boolean {
  if (domainToASCII(value) !== value) return false;
  const decoded = domainToUnicode(value).split('.');
  return value
    .split('.')
    .every(
      (label, index) =>
        !label.startsWith('xn--') || (decoded[index] !== undefined && !decoded[index].startsWith('xn--')),
    );
}

/**
 * The one single-label name accepted as a website's domain: webmasters developing on their own machine. Nobody can
 * publish a proof for it, so only the operator can vouch for it (lib/websites/domain-verification.ts).
 */
export const LOCAL_DEVELOPMENT_DOMAIN = 'localhost';

/** A lower-case host name whose punycode labels, if any, are valid; or exactly `localhost`. */
export function isWebsiteDomain(value: string): boolean {
  return value === LOCAL_DEVELOPMENT_DOMAIN || (value.length <= 253 && HOST_NAME.test(value) && punycodeDecodes(value));
}

/** A redirect URI (docs/external-api.md): absolute, https unless loopback, no fragment, no userinfo; printable ASCII only (compared exactly later). */
export function isRedirectUri(value: string): boolean {
  if (!/^[\x21-\x7e]+$/.test(value) || value.includes('#') || !URL.canParse(value)) return false;
  // The authority (between "//" and the path) must exist and carry no userinfo.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?]*)/i.exec(value)?.[1];
  if (!authority || authority.includes('@')) return false;
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** An Ajv with our formats: one stopping at the first problem (every request), one finding all (a form's summary). */
function ajvWithFormats(allErrors: boolean): Ajv {
  const ajv = new Ajv({ allErrors, verbose: true, strict: true });
  ajv.addFormat('website-domain', { type: 'string', validate: isWebsiteDomain });
  ajv.addFormat('redirect-uri', { type: 'string', validate: isRedirectUri });
  ajv.addFormat('policy-region', { type: 'string', validate: (value) => value === '*' || isRegionCode(value) });
  // A real day of the calendar from year 0001 (PostgreSQL has no year 0): the text survives a round trip through Date.
  ajv.addFormat('calendar-date', {
    type: 'string',
    validate: (value) =>
      /^(?!0000)\d{4}-\d{2}-\d{2}$/.test(value) &&
      !Number.isNaN(Date.parse(value)) &&
      new Date(value).toISOString().startsWith(value),
  });
  return ajv;
}
const ajv = ajvWithFormats(false);
const everyProblem = ajvWithFormats(true);

const pathOf = (instancePath: string): string =>
  instancePath
    .split('/')
    .slice(1)
    .map((part, index) => (/^\d+$/.test(part) && index > 0 ? `[${part}]` : `${index > 0 ? '.' : ''}${part}`))
    .join('');

/** One clear sentence for the first problem Ajv found. `what` names the input ("body", "path"). */
function describeProblem(error: ErrorObject, what: string): string {
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  const parent = error.parentSchema as { description?: string; properties?: Record<string, unknown> } | undefined;
  switch (error.keyword) {
    case 'additionalProperties':
      return `Unknown field "${params.additionalProperty ?? ''}" in the ${what}.`;
    case 'required':
      return `Missing required field "${params.missingProperty ?? ''}" in the ${what}.`;
    case 'minProperties':
      return `The ${what} must contain at least one of: ${Object.keys(parent?.properties ?? {}).join(', ')}.`;
    default: {
      const path = pathOf(error.instancePath);
      if (!path) return `The ${what} must be a JSON object.`;
      return `Invalid ${path}. ${parent?.description ?? `It ${error.message ?? 'is not allowed'}.`}`;
    }
  }
}

/** Compiles `schema` into a function returning its input typed as T, or refusing it as invalid with a clear message. */
export function validator<T>(schema: SchemaObject, what: string): (value: unknown) => T {
  const validate = ajv.compile<T>(schema);
  return (value) => {
    if (validate(value)) return value;
    const [first] = validate.errors ?? [];
    throw new Refusal('invalid', first ? describeProblem(first, what) : `The ${what} is invalid.`);
  };
}

/**
 * Compiles `schema` into a yes/no check with the same formats (the platform's forms check one field at a time; a
 * file read back, typed T when it conforms).
 */
export function conforms<T = unknown>(schema: SchemaObject): (value: unknown) => value is T {
  const validate = ajv.compile<T>(schema);
  return (value): value is T => validate(value);
}

/** One problem of an input: where (Ajv's instance path, e.g. `/rules/0/ageThreshold`) and the sentence a 400 says. */
export interface InputProblem {
  path: string;
  message: string;
}

/** Compiles `schema` into a function listing every problem of an input (none: valid), in the sentences of `validator`. */
export function problemsOf(schema: SchemaObject, what: string): (value: unknown) => InputProblem[] {
  const validate = everyProblem.compile(schema);
  return (value) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) => ({ path: error.instancePath, message: describeProblem(error, what) }));
}
