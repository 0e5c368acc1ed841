import { systemClock } from '../../clock.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../verification/challenge.js';
import { issueTickets, MAX_BATCH_SIZE } from '../../verification/challenges/ticket/codes.js';
import { output, UsageError, type Command } from '../command.js';
import { subcommandOf } from '../arguments.js';
import { withConfiguredDatabase } from '../configured-database.js';

const MAX_EXPIRY_DAYS = 3650;

const USAGE = `Usage:
  age-provider tickets issue --count N --level LEVEL [--expires-days D] [--json]

Issues a batch of single-use ticket codes for the "ticket" challenge and prints them ONCE: only their SHA-256
hashes are stored, so a lost code cannot be shown again (issue a new batch instead).

Options:
  --count N          how many codes, 1 to ${MAX_BATCH_SIZE}
  --level LEVEL      the assurance level a redeemed code records: ${ASSURANCE_LEVELS.join(', ')}
  --expires-days D   codes stop working after D days (1 to ${MAX_EXPIRY_DAYS}); default: they never expire
  --json             print one JSON document on stdout: {"batch", "level", "count", "expiresAt", "codes": [...]}

Codes look like 7KQ2-M9XD-3HTW-ZP5N-C8RV (100 random bits); visitors may type them in any case, with or without
dashes. Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the
one process that opened it: stop the server first, or run both against PostgreSQL.`;

function positiveInteger(value: unknown, option: string, max: number): number {
  const text = typeof value === 'string' ? value.trim() : '';
  const number = Number(text);
  if (!/^\d+$/.test(text) || number < 1 || number > max)
    throw new UsageError(`${option} must be a whole number from 1 to ${max}`);
  return number;
}

function levelOf(value: unknown): AssuranceLevel {
  if (value === undefined) throw new UsageError(`--level is required: one of ${ASSURANCE_LEVELS.join(', ')}`);
  const level = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!(ASSURANCE_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--level ${JSON.stringify(value)} is not a level: use one of ${ASSURANCE_LEVELS.join(', ')}`);
  }
  return level as AssuranceLevel;
}

export const ticketsCommand: Command = {
  name: 'tickets',
  summary: 'issue single-use ticket codes for the ticket challenge',
  usage: USAGE,
  options: {
    count: { type: 'string' },
    level: { type: 'string' },
    'expires-days': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, io) {
    subcommandOf(ticketsCommand, positionals, ['issue']);
    if (values.count === undefined) throw new UsageError('--count is required (run "age-provider tickets --help")');
    const count = positiveInteger(values.count, '--count', MAX_BATCH_SIZE);
    const level = levelOf(values.level);
    const expiresInDays =
      values['expires-days'] === undefined
        ? undefined
        : positiveInteger(values['expires-days'], '--expires-days', MAX_EXPIRY_DAYS);

    const batch = await withConfiguredDatabase(io, ({ db }) =>
      issueTickets(db, systemClock, { count, level, expiresInDays }),
    );
    const expiresAt = batch.expiresAt?.toISOString() ?? null;
    output(
      io,
      values.json === true,
      { batch: batch.batch, level: batch.level, count: batch.count, expiresAt, codes: batch.codes },
      [
        `Batch ${batch.batch}: ${batch.count} ${batch.level} ticket code(s)${expiresAt ? `, valid until ${expiresAt}` : ''}.`,
        'Shown only this once; only their hashes are stored:',
        ...batch.codes,
      ].join('\n'),
    );
    return 0;
  },
};
