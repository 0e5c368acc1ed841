import { verifyTrail, websiteChain } from '../../audit/trail.js';
import { websiteIdOf } from '../arguments.js';
import { EXIT, output, UsageError, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

const USAGE = `Usage:
  age-provider audit verify [--json]
  age-provider audit export --website ID

Subcommands:
  verify   Checks every chain of the audit trail (one per website, one per webmaster account): each entry's hash
           against its content, each link to the entry before, no entry missing, the newest one the chain's head.
           Exit status 0 when the trail is intact, 1 when a chain breaks (each broken chain is named, with the first
           entry where it breaks).
  export   Prints a website's whole trail as JSON lines, oldest first (docs/audit.md says how to check it).

Options:
  --website ID   the website whose trail to export
  --json         verify: print {"intact", "chains", "entries", "breaks": [{"chain", "seq", "id", "problem"}]}

Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the one
process that opened it: stop the server first, or run both against PostgreSQL.`;

export const auditCommand: Command = {
  name: 'audit',
  summary: 'check the audit trail\'s hash chains, or export a website\'s trail',
  usage: USAGE,
  options: { website: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    const [subcommand, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" (run "age-provider audit --help")`);
    if (subcommand === 'export') {
      const websiteId = websiteIdOf(values.website);
      const entries = await withConfiguredDatabase(io, ({ db }) => websiteChain(db, websiteId));
      for (const entry of entries) io.stdout(`${JSON.stringify(entry)}\n`);
      return EXIT.ok;
    }
    if (subcommand !== 'verify') {
      throw new UsageError(subcommand ? `unknown subcommand "${subcommand}": use "verify" or "export"` : 'a subcommand is required: "verify" or "export"');
    }
    if (values.website !== undefined) throw new UsageError('--website applies to "audit export" only');
    const result = await withConfiguredDatabase(io, ({ db }) => verifyTrail(db));
    const intact = result.breaks.length === 0;
    output(io, values.json === true, { intact, ...result }, intact
      ? `Audit trail intact: ${result.entries} entries in ${result.chains} chains.`
      : [
        `Audit trail BROKEN in ${result.breaks.length} of ${result.chains} chains:`,
        ...result.breaks.map((broken) => `  ${broken.chain}: ${broken.problem}${broken.id === null ? '' : ` (audit_entries row id ${broken.id})`}`),
      ].join('\n'));
    return intact ? EXIT.ok : EXIT.failure;
  },
};
