import pg from 'pg';
import { CliError } from './command.js';

/** DATABASE_URL as it may be printed: the password replaced, so the line can go into a log or a support ticket. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}

/** PostgreSQL's and Node's error codes an operator can fix, in their words. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections at that host and port',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  '3D000': 'that database does not exist (create it, e.g. with createdb)',
  '28P01': 'the password was refused',
  '28000': 'the server refused this user',
};

function reasonOf(error: unknown): string {
  const codes = [error, ...(error instanceof AggregateError ? error.errors : [])]
    .map((candidate) => (candidate as { code?: unknown } | null)?.code)
    .filter((code): code is string => typeof code === 'string');
  const known = codes.find((code) => REASONS[code]);
  return known ? REASONS[known]! : (error as Error).message;
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects once before a command opens its pool, so an unreachable server or a missing database ends the command
 * with one line naming DATABASE_URL (without its password) instead of the pool's stack traces.
 */
export async function checkDatabaseReachable(databaseUrl: string | undefined): Promise<void> {
  if (!databaseUrl) return;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    throw new CliError(
      `cannot use the PostgreSQL database DATABASE_URL=${describeDatabaseUrl(databaseUrl)}: ${reasonOf(error)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
