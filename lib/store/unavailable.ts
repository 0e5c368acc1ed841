import knexFactory from 'knex';

/** Socket-level failures reaching PostgreSQL (Node's error codes). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs meaning "not now" rather than "wrong query": admin/crash shutdown and cannot-connect-now
 * (57P01..57P03), statement timeout (57014); the whole class 08 (connection exceptions) is matched by prefix.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '57014']);

/** The code another part of the server throws when a request ran past its overall deadline. */
const REQUEST_DEADLINE = 'REQUEST_DEADLINE';

/**
 * Driver messages without a code: pg's lost connection, pg giving up on a query the server never answered (its
 * query_timeout: a hung server or a silent network), pg giving up on opening a connection the server accepted and
 * never answered (its connectionTimeoutMillis; the pool hands that error to every request waiting for the attempt,
 * not only to the one that started it), knex after its pool was closed, PGlite after close().
 */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /^Query read timeout$/,
  /^timeout expired$/,
  /Unable to acquire a connection/i,
  /PGlite is closed/i,
  /Client has encountered a connection error/i,
];

const codeOf = (error: object): unknown => (error as { code?: unknown }).code;

function isUnavailableItself(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  if (error instanceof knexFactory.KnexTimeoutError) return true;
  const code = codeOf(error);
  if (
    typeof code === 'string' &&
    (code === REQUEST_DEADLINE || CONNECTION_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))
  ) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * The one place that decides whether a failure means "the database cannot be reached or did not answer in time"
 * (the caller answers 503 with Retry-After) rather than a defect (500). Looks through `cause` and an
 * AggregateError's members, since pg and knex wrap the socket error.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || !error || typeof error !== 'object') return false;
  if (isUnavailableItself(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (isDatabaseUnavailable(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((member) => isDatabaseUnavailable(member, depth + 1));
}
