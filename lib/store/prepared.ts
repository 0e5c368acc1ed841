import type { Knex } from 'knex';
import { isEmbedded, type Database } from './database.js';

/**
 * A statement of the hot path (authorization, token, Resources): written once in SQL with $n parameters and, on
 * PostgreSQL, a named prepared statement, so each connection parses and plans it once and the query builder costs
 * nothing per call (knex's building and binding, and PostgreSQL's parsing, were a large share of a flow's CPU:
 * docs/performance.md "Measurements behind code choices").
 * Everything else goes through knex.
 */
export interface PreparedStatement {
  /** unique per text: PostgreSQL keeps one plan per name and connection */
  name: string;
  /**
   * Names every column it returns (never `table.*`): a connection keeps its plan, and PostgreSQL refuses to run a
   * plan whose result columns changed, so a column that a newer version's migration adds must not reach it.
   */
  text: string;
}

/** A parameter as knex binds it (pg and PGlite serialise arrays, buffers and objects themselves). */
type Value = Knex.Value;

/** A pooled pg client, and pg's record of the statements it has prepared on its connection. */
interface PgConnection {
  query(config: { name: string; text: string; values: readonly Value[] }): Promise<{ rows: unknown[] }>;
  query(text: string): Promise<unknown>;
  connection: { parsedStatements: Record<string, string | undefined> };
}

/**
 * "cached plan must not change result type": the statement was prepared on this connection before a column it
 * returns changed (a migration of a newer instance in a rolling deploy), and PostgreSQL refuses to run it again.
 */
const STALE_PLAN = '0A000';

const isStalePlan = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === STALE_PLAN;

/**
 * Runs a named statement on a pg connection. A plan made before the table changed is dropped (on the server and in
 * pg's record, so that pg parses the text again) and the statement runs once more on the table as it is now: one
 * retry, which a statement just prepared cannot fail the same way.
 */
async function runNamed(
  connection: PgConnection,
  statement: PreparedStatement,
  values: readonly Value[],
): Promise<{ rows: unknown[] }> {
  const query = { name: statement.name, text: statement.text, values };
  try {
    return await connection.query(query);
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    await connection.query(`DEALLOCATE "${statement.name}"`);
    delete connection.connection.parsedStatements[statement.name];
    return connection.query(query);
  }
}

/** The embedded database's one connection (PGlite): it prepares every statement itself. */
interface EmbeddedConnection {
  query(text: string, values: readonly Value[]): Promise<{ rows: unknown[] }>;
}

/** The part of knex's client used here: its pool, and its events (the statement counts listen to `query`). */
interface PooledClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: readonly Value[]; method: 'raw' }): boolean;
}

/**
 * Runs `statement` on a connection of knex's own pool (so the embedded database's one connection is never used by
 * two callers at once, and a transaction in progress is waited for) and returns its rows. Not for a transaction's
 * connection: the retry of a stale plan needs a connection that the failure left usable.
 */
export async function runPrepared<Row>(
  db: Database,
  statement: PreparedStatement,
  values: readonly Value[],
): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    client.emit('query', { sql: statement.text, bindings: values, method: 'raw' });
    const result = isEmbedded(db)
      ? await (connection as EmbeddedConnection).query(statement.text, values)
      : await runNamed(connection as PgConnection, statement, values);
    return result.rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}
