import type { Knex } from 'knex';

export const step = 'expand';

/**
 * A webmaster's address is proven before any credential is attached to it (issue 32, the pre-hijack), and the
 * platform's sessions describe themselves (lib/platform/sessions.ts).
 *
 * - `webmasters.email_confirmed_at`: when the mailbox was proven (a mailed link or sign-in code was used) or the
 *   operator vouched for it (`age-provider webmaster create | confirm`). Every account made from now on is confirmed
 *   at creation: a self-registered one is created only when its mailed link is used.
 * - `webmasters.password_hash` may be empty: an account the operator created whose link was not used yet, or one
 *   whose unproven credentials were cleared (below).
 * - `password_links`: single-use links that set a password, mailed (registration, reset) or printed by the operator;
 *   kept as SHA-256 digests only.
 * - `platform_sessions` gains its browser, network address and last request (the session list), and its stage: a
 *   password alone opens a session that only reaches the second factor's pages.
 *
 * What becomes of the accounts registered before this change (docs/decisions, "Accounts registered before addresses
 * were proven"): an account whose mailed sign-in code was used (a row of sign_in_codes marked used) is confirmed.
 * Every other one stays unconfirmed and KEEPS WORKING with its password: nothing here can tell its owner from someone
 * who registered the address first. The first proof of its mailbox (a mailed sign-in code, a reset or set-password
 * link, including the "you already have an account" mail a new registration sends) takes the account over for
 * whoever reads that mailbox: its password is cleared (or replaced by the one the link sets), its sessions ended,
 * its API token revoked and its second factors removed, then it is confirmed. So an attacker who registered someone
 * else's address first keeps nothing once the address's owner appears. The operator may vouch for an account
 * instead (`age-provider webmaster confirm`), which confirms it and keeps its credentials.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webmasters', (t) => {
    t.timestamp('email_confirmed_at', { useTz: true });
  });
  await knex.schema.alterTable('webmasters', (t) => {
    t.text('password_hash').nullable().alter();
  });
  await knex('webmasters')
    .whereIn('id', knex('sign_in_codes').whereNotNull('used_at').select('webmaster_id'))
    .update({ email_confirmed_at: knex.fn.now() });

  await knex.schema.createTable('password_links', (t) => {
    t.bigIncrements('id');
    t.text('token_hash').notNullable().unique();
    // The normalised address the link was mailed to: a registration's account is created only when it is used.
    t.text('email').notNullable();
    // 'register' (a new address), 'reset' (mailed to an existing account) or 'operator' (printed by the CLI)
    t.text('purpose').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['email']);
    t.index(['expires_at']);
  });

  await knex.schema.alterTable('platform_sessions', (t) => {
    t.text('user_agent');
    t.text('address');
    t.timestamp('last_seen_at', { useTz: true });
    // 'full'; 'second_factor' (the password or code was right, the second factor is still asked); 'enrol' (the
    // operator requires a second factor and the account has none yet: only adding one is reachable).
    t.text('stage').notNullable().defaultTo('full');
    t.index(['webmaster_id']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
