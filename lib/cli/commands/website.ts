import { recordChange } from '../../app/changes.js';
import type { ChangeOrigin } from '../../changes.js';
import { systemClock } from '../../clock.js';
import { Refusal } from '../../refusal.js';
import { revokeDomainVouching, vouchForDomain, type DomainVouching } from '../../websites/index.js';
import { idOf, subcommandOf } from '../arguments.js';
import { CliError, EXIT, output, UsageError, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

const USAGE = `Usage:
  age-provider website vouch-domain --website ID [--revoke] [--json]

Subcommands:
  vouch-domain   The operator of this service vouches for the website's domain: visitors see it marked as verified,
                 and the webmasters platform and the External API say it was verified by the operator (verifiedBy
                 "operator"). For a partner whose domain you checked yourself, or for "localhost", which nobody can
                 publish a token for. The webmaster's own checks leave it verified; only --revoke withdraws it (the
                 domain is then verified only if the webmaster's next check finds a published token).
                 Recorded in the website's audit trail; asking for the state the domain is already in changes nothing.

Options:
  --website ID   the website's id (as in the platform's address, /platform/websites/ID)
  --revoke       withdraw the operator's vouching instead
  --json         print one JSON document on stdout: {"websiteId", "domain", "verified", "verifiedBy", "changed"}

Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the one
process that opened it: stop the server first, or run both against PostgreSQL.`;

/** The audit trail's name for a vouching done here: the operator, at the command line. */
const OPERATOR_VOUCHING: ChangeOrigin = {
  actor: { type: 'operator', id: 'age-provider website vouch-domain' },
  address: null,
};

const describe = (result: DomainVouching, revoke: boolean): string => {
  const which = `the domain ${result.domain} of website ${result.websiteId}`;
  if (!revoke)
    return result.changed
      ? `Vouched for ${which}: visitors now see it verified.`
      : `Already vouched for ${which}; nothing changed.`;
  if (result.changed) return `Withdrew the vouching for ${which}: it is not verified until a published token is found.`;
  return result.verified
    ? `The operator did not vouch for ${which} (it is verified by its published token); nothing changed.`
    : `The operator did not vouch for ${which} (it is not verified); nothing changed.`;
};

export const websiteCommand: Command = {
  name: 'website',
  summary: "vouch for a website's domain as the operator, or withdraw that",
  usage: USAGE,
  options: { website: { type: 'string' }, revoke: { type: 'boolean' }, json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    subcommandOf(websiteCommand, positionals, ['vouch-domain']);
    if (values.website === undefined) throw new UsageError('--website is required (run "age-provider website --help")');
    const websiteId = idOf('website', values.website);
    const revoke = values.revoke === true;
    const result = await withConfiguredDatabase(io, async ({ db }) => {
      try {
        return await (revoke ? revokeDomainVouching : vouchForDomain)(
          { db, clock: systemClock, recordChange },
          websiteId,
          OPERATOR_VOUCHING,
        );
      } catch (error) {
        if (error instanceof Refusal && error.kind === 'not_found')
          throw new CliError(`no website has the id ${websiteId}`);
        throw error;
      }
    });
    output(io, values.json === true, result, describe(result, revoke));
    return EXIT.ok;
  },
};
