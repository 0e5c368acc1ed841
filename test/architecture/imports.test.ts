import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../../lib/paths.js';

/**
 * The architecture's arrows, checked instead of remembered (docs/decisions.md "Who may do what"): domain folders never
 * import a surface folder, and SQL is issued only by the modules that own the tables.
 */

const SURFACES = ['external', 'platform', 'requirement', 'checker', 'oauth2'];
const DOMAINS = ['websites', 'webmasters', 'visitors', 'verification', 'geo', 'i18n', 'security', 'store', 'config', 'mail', 'branding', 'webhooks', 'audit', 'statistics'];
/**
 * The plugin contract's two seams into the interaction pages, and nothing else: a challenge names its step URLs
 * (paths.ts) and an endpoint of its own reads or swaps its stored state (progress.ts).
 */
const ALLOWED_DOMAIN_TO_SURFACE = new Set(['oauth2/interactions/paths.ts', 'oauth2/interactions/progress.ts']);

/** The modules that issue SQL: each owns its tables; everything else asks them. */
const SQL_OWNERS = new Set([
  'adapters/knex.ts',
  'lib/audit/trail.ts',
  'lib/statistics/store.ts',
  'lib/http/health.ts',
  'lib/oauth2/interactions/progress.ts',
  'lib/platform/sessions.ts',
  'lib/store/database.ts',
  'lib/store/migrate.ts',
  'lib/store/retention.ts',
  'lib/verification/challenges/ticket/codes.ts',
  'lib/verification/proofs.ts',
  'lib/verification/verifications.ts',
  'lib/visitors/passkey-ceremonies.ts',
  'lib/visitors/passkeys.ts',
  'lib/visitors/visitor-accounts.ts',
  'lib/webmasters/accounts.ts',
  'lib/webmasters/api-tokens.ts',
  'lib/websites/clients.ts',
  'lib/websites/domain-verification.ts',
  'lib/websites/keys.ts',
  'lib/websites/oauth2.ts',
  'lib/websites/websites.ts',
  'lib/webhooks/endpoints.ts',
  'lib/webhooks/events.ts',
  'lib/webhooks/outbox.ts',
]);

const files = (folder: string): string[] =>
  readdirSync(join(packageRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(packageRoot, join(entry.parentPath, entry.name)));

/** Every relative import of a file, resolved to a path relative to lib/ (a .js specifier names its .ts source). */
function importsOf(file: string): string[] {
  const source = readFileSync(join(packageRoot, file), 'utf8');
  return [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    relative(join(packageRoot, 'lib'), join(packageRoot, file, '..', specifier!)).replace(/\.js$/, '.ts'));
}

/** Calls that reach the database: a query builder on a table, a raw statement, a transaction. */
const ISSUES_SQL = /\b(?:db|trx)(?:<[^>]*>)?\(|\.raw\(|\.transaction\(/;

describe('architecture: the import graph', () => {
  it('no domain folder imports a surface folder (beyond the two seams of the challenge contract)', () => {
    const violations = DOMAINS.flatMap((domain) => files(`lib/${domain}`).flatMap((file) =>
      importsOf(file)
        .filter((target) => SURFACES.includes(target.split('/')[0]!) && !ALLOWED_DOMAIN_TO_SURFACE.has(target))
        .map((target) => `${file} → lib/${target}`)));
    expect(violations).to.deep.equal([]);
  });

  it('only the modules that own tables issue SQL', () => {
    const issuing = [...files('lib'), ...files('adapters')].filter((file) => ISSUES_SQL.test(readFileSync(join(packageRoot, file), 'utf8')));
    expect(issuing.filter((file) => !SQL_OWNERS.has(file)), 'SQL outside its owners').to.deep.equal([]);
    expect([...SQL_OWNERS].filter((file) => !issuing.includes(file)), 'listed owners that issue no SQL (remove them)').to.deep.equal([]);
  });
});
