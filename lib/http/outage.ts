/**
 * How long a caller should wait before retrying while the database is unreachable: PostgreSQL restarts take a few
 * seconds, and the pool reconnects on the next query by itself (no restart of ours needed).
 */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** The answer every surface gives while its database cannot be reached: 503 with Retry-After, never a 500. */
export const OUTAGE = {
  status: 503,
  /** the OAuth2 error code (RFC 6749 §4.1.2.1) for the JSON shapes of the back channel and the requirement */
  code: 'temporarily_unavailable',
  message: 'The service cannot reach its database right now. Retry in a few seconds.',
  headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) } as Record<string, string>,
} as const;
