import { verifyTrail, wholeChain, type ChainOwner } from '../../audit/trail.js';
import { idOf, subcommandOf } from '../arguments.js';
import { CliError, EXIT, output, UsageError, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

const USAGE = `Usage:
  age-provider audit verify [--json]
  age-provider audit export --website ID
  age-provider audit export --webmaster ID

Subcommands:
  verify   Checks every chain of the audit trail (one per website, one per webmaster account): each entry's hash
           against its content, each link to the entry before, no entry missing, the newest one the chain's head.
           Exit status 0 when the trail is intact, 1 when a chain breaks (each broken chain is named, with the first
           entry where it breaks).
  export   Prints one chain whole as JSON lines, oldest first (docs/audit.md says how to check it): a website's, or
           a webmaster account's own (its API tokens). Exit status 1 when the chain has no entry.

Options:
  --website ID     the website whose trail to export
  --webmaster ID   the webmaster account whose own trail to export (the id "webmaster token --json" prints)
  --json           verify: print {"intact", "chains", "entries", "breaks": [{"chain", "seq", "id", "problem"}]}

Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the one
process that opened it: stop the server first, or run both against PostgreSQL.`;

/** The one chain an export names: a website's or a webmaster account's, never both, never neither. */
function ownerOf(values: Record<string, unknown>): ChainOwner {
  if ((values.website === undefined) === (values.webmaster === undefined))
    throw new UsageError('audit export needs --website ID or --webmaster ID (one of them)');
  return values.website !== undefined
    ? { website: idOf('website', values.website) }
    : { webmaster: idOf('webmaster', values.webmaster) };
}

const ownerText = (owner: ChainOwner): string =>
  'website' in owner ? `website ${owner.website}` : `webmaster ${owner.webmaster}`;

export const auditCommand: Command = {
  name: 'audit',
  summary: "check the audit trail's hash chains, or export one of them",
  usage: USAGE,
  options: { website: { type: 'string' }, webmaster: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    if (subcommandOf(auditCommand, positionals, ['verify', 'export']) === 'export') {
      const owner = ownerOf(values);
      const entries = await withConfiguredDatabase(io, ({ db }) => wholeChain(db, owner));
      // An empty export would read as "nothing changed": say instead that there is nothing to export, and why.
      if (entries.length === 0)
        throw new CliError(
          `no audit entries for ${ownerText(owner)}: it does not exist, or none of its changes came after the audit trail began`,
        );
      for (const entry of entries) io.stdout(`${JSON.stringify(entry)}\n`);
      return EXIT.ok;
    }
    if (values.website !== undefined || values.webmaster !== undefined)
      throw new UsageError('--website and --webmaster apply to "audit export" only');
    const result = await withConfiguredDatabase(io, ({ db }) => verifyTrail(db));
    const intact = result.breaks.length === 0;
    output(
      io,
      values.json === true,
      { intact, ...result },
      intact
        ? `Audit trail intact: ${result.entries} entries in ${result.chains} chains.`
        : [
            `Audit trail BROKEN in ${result.breaks.length} of ${result.chains} chains:`,
            ...result.breaks.map(
              (broken) =>
                `  ${broken.chain}: ${broken.problem}${broken.id === null ? '' : ` (audit_entries row id ${broken.id})`}`,
            ),
          ].join('\n'),
    );
    return intact ? EXIT.ok : EXIT.failure;
  },
};
