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
  text: string;
}

/** A parameter as knex binds it (pg and PGlite serialise arrays, buffers and objects themselves). */
type Value = Knex.Value;

/** A pooled pg client. */
interface PgConnection {
  query(config: { name: string; text: string; values: readonly Value[] }): Promise<{ rows: unknown[] }>;
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
 * two callers at once, and a transaction in progress is waited for) and returns its rows.
 */
export async function runPrepared<Row>(db: Database, statement: PreparedStatement, values: readonly Value[]): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    client.emit('query', { sql: statement.text, bindings: values, method: 'raw' });
    const result = isEmbedded(db)
      ? await (connection as EmbeddedConnection).query(statement.text, values)
      : await (connection as PgConnection).query({ name: statement.name, text: statement.text, values });
    return result.rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}
