import { readFile, writeFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import { systemClock } from '../../clock.js';
import { checkEvidence } from '../../evidence/check.js';
import { evidencePeriod, operatorEvidence } from '../../evidence/evidence.js';
import { OAUTH2_PATHS } from '../../oauth2/protocol.js';
import { Refusal } from '../../refusal.js';
import { conforms } from '../../websites/validation.js';
import { idOf, subcommandOf } from '../arguments.js';
import { CliError, EXIT, output, UsageError, type CliIo, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

const USAGE = `Usage:
  age-provider evidence export --website ID --from YYYY-MM-DD --to YYYY-MM-DD [--out FILE]
  age-provider evidence verify FILE [--jwks URL|FILE] [--json]

Subcommands:
  export   Makes a website's evidence pack for the period (at most 366 days, UTC): one document signed with the
           service's signing key (the one published at ${OAUTH2_PATHS.jwks}) holding the statistics per day, the
           rules in force, the website's audit chain over the period with its heads, the eu_av trust in force and
           the retention settings (docs/evidence.md). Written to FILE, or to standard output.
  verify   Checks a pack: its signature against the service's published keys, then its own consistency (the audit
           chain recomputed from its entries to its heads, the website's rule changes against the chain, the totals
           equal to the sum of the days). One line per check; exit status 0 when every check passes, 1 otherwise.

Options:
  --website ID   export: the website's id
  --from DAY     export: the first day of the period, YYYY-MM-DD (UTC)
  --to DAY       export: the last day of the period, YYYY-MM-DD (UTC)
  --out FILE     export: write the pack to FILE instead of standard output
  --jwks SOURCE  verify: the keys to check against, a URL or a file holding a JWKS. Without it, the JWKS of the
                 issuer the pack names (ISSUER${OAUTH2_PATHS.jwks}): pass --jwks to check against the keys you know
                 to be the service's.
  --json         verify: print {"valid", "checks": [{"name", "ok", "detail"}]}

export works against DATABASE_URL while the server runs; the embedded database (no DATABASE_URL) belongs to the
one process that opened it: stop the server first. verify needs no database, only the keys.`;

const isKeySet = conforms<JSONWebKeySet>({
  type: 'object',
  required: ['keys'],
  properties: {
    keys: { type: 'array', items: { type: 'object', required: ['kty'], properties: { kty: { type: 'string' } } } },
  },
});

/** How long verify waits for a published JWKS. */
const JWKS_TIMEOUT_MS = 10_000;

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** The JWKS at a URL or in a file; anything else is a one-line error. */
async function keysFrom(source: string): Promise<JSONWebKeySet> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    try {
      const response = await fetch(source, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS), redirect: 'error' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch (error) {
      throw new CliError(`cannot fetch the keys at ${source}: ${(error as Error).message}`);
    }
  } else text = await readText(source, 'the keys in');
  let keys: unknown;
  try {
    keys = JSON.parse(text);
  } catch {
    throw new CliError(`the keys at ${source} are not JSON`);
  }
  if (!isKeySet(keys)) throw new CliError(`the keys at ${source} are not a JWKS ({"keys": [...]})`);
  return keys;
}

/** Without --jwks: the JWKS of the issuer the pack itself names (its payload read before it is checked). */
function issuerKeysOf(text: string): string {
  try {
    const { payload } = JSON.parse(text) as { payload: string };
    const { issuer } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { issuer: string };
    return `${new URL(issuer).href.replace(/\/$/, '')}${OAUTH2_PATHS.jwks}`;
  } catch {
    throw new CliError('the file names no issuer whose keys to fetch: pass --jwks URL|FILE');
  }
}

async function exportPack(values: Record<string, unknown>, io: CliIo): Promise<number> {
  const websiteId = idOf('website', values.website);
  if (typeof values.from !== 'string' || typeof values.to !== 'string')
    throw new UsageError('evidence export needs --from YYYY-MM-DD and --to YYYY-MM-DD');
  let period;
  try {
    period = evidencePeriod({ from: values.from, to: values.to });
  } catch (error) {
    if (error instanceof Refusal) throw new UsageError(error.message);
    throw error;
  }
  const pack = await withConfiguredDatabase(io, async ({ config, db }) => {
    try {
      return await operatorEvidence({ db, clock: systemClock, config }, websiteId, period);
    } catch (error) {
      if (error instanceof Refusal) throw new CliError(error.message);
      throw error;
    }
  });
  const text = `${JSON.stringify(pack, null, 2)}\n`;
  if (typeof values.out !== 'string') {
    io.stdout(text);
    return EXIT.ok;
  }
  try {
    await writeFile(values.out, text);
  } catch (error) {
    throw new CliError(
      `cannot write ${values.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  io.stderr(`Evidence pack of website ${websiteId}, ${period.from} to ${period.to}, written to ${values.out}\n`);
  return EXIT.ok;
}

async function verifyPack(file: string | undefined, values: Record<string, unknown>, io: CliIo): Promise<number> {
  if (file === undefined) throw new UsageError('evidence verify needs the FILE to check');
  const text = await readText(file, 'the evidence pack');
  const source = typeof values.jwks === 'string' ? values.jwks : issuerKeysOf(text);
  const checks = await checkEvidence(text, await keysFrom(source));
  const valid = checks.every((check) => check.ok);
  output(
    io,
    values.json === true,
    { valid, keys: source, checks },
    [
      ...checks.map((check) => `${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`),
      valid ? `Evidence pack valid (keys: ${source}).` : `Evidence pack NOT valid (keys: ${source}).`,
    ].join('\n'),
  );
  return valid ? EXIT.ok : EXIT.failure;
}

export const evidenceCommand: Command = {
  name: 'evidence',
  summary: "make a website's signed evidence pack for a period, or check one",
  usage: USAGE,
  options: {
    website: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    jwks: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, io) {
    const [, file, ...extra] = positionals;
    const subcommand = subcommandOf(evidenceCommand, positionals.slice(0, 1), ['export', 'verify']);
    if (subcommand === 'export') {
      if (file !== undefined)
        throw new UsageError(`unexpected argument "${file}" (run "age-provider evidence --help")`);
      if (values.jwks !== undefined) throw new UsageError('--jwks applies to "evidence verify" only');
      return exportPack(values, io);
    }
    if (extra.length > 0)
      throw new UsageError(`unexpected argument "${extra[0]}" (run "age-provider evidence --help")`);
    for (const option of ['website', 'from', 'to', 'out'])
      if (values[option] !== undefined) throw new UsageError(`--${option} applies to "evidence export" only`);
    return verifyPack(file, values, io);
  },
};
