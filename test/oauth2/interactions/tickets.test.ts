import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { knexAdapter } from '../../../adapters/knex.js';
import { main } from '../../../lib/cli/main.js';
import type { CliIo } from '../../../lib/cli/command.js';
import { sha256 } from '../../../lib/security/hashing.js';
import { redeemTicket } from '../../../lib/verification/challenges/ticket/codes.js';
import { startTestApp, testSecrets, type TestApp } from '../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../helpers/fixtures.js';
import { Browser, formOf, type Page } from '../../helpers/browser.js';
import { accept, callbackOf, continueWithoutSaving, expectPage } from '../../helpers/visitor.js';
import { authorizationUrl, redeem } from '../../helpers/relying-party.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => '',
    env,
    oidcAdapter: knexAdapter,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** The CLI in a child process (`age-provider <args>` from the sources). */
async function cliProcess(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const script = `import { main, processIo } from ${JSON.stringify(fileURLToPath(new URL('../../../lib/cli/main.ts', import.meta.url)))};
    import { knexAdapter } from ${JSON.stringify(fileURLToPath(new URL('../../../adapters/knex.ts', import.meta.url)))};
    process.exitCode = await main(process.argv.slice(1), { ...processIo, oidcAdapter: knexAdapter });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (exit) => resolve(exit ?? -1)));
  return { code, stdout, stderr };
}

interface Batch {
  batch: string;
  level: string;
  count: number;
  expiresAt: string | null;
  codes: string[];
}

const onPostgres = Boolean(process.env.DATABASE_URL);

describe('ticket challenge and `age-provider tickets`', function () {
  // The set-up runs the CLI twice on a fresh embedded database (each run creates and migrates it) before the server starts.
  this.timeout(120_000);
  let app: TestApp;
  let dataDir: string;
  let cliEnv: NodeJS.ProcessEnv;
  let client: ClientFixture;
  let batch: Batch;
  let expiring: Run;

  /** `tickets issue` works against DATABASE_URL while the server runs; the embedded database must be free, so it runs first there. */
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-tickets-'));
    const secretsEnv = {
      SEALING_KEY: testSecrets.sealingKey,
      COOKIE_KEYS: testSecrets.cookieKeys.join(','),
      JWKS: JSON.stringify(testSecrets.jwks),
    };
    if (onPostgres) {
      app = await startTestApp();
      cliEnv = { DATABASE_URL: app.database.url, ...secretsEnv };
    } else {
      cliEnv = { DATA_DIR: dataDir, ...secretsEnv };
    }
    const issued = await cli(['tickets', 'issue', '--count', '12', '--level', 'enhanced', '--json'], cliEnv);
    expect(issued.code, issued.stderr).to.equal(0);
    batch = JSON.parse(issued.stdout) as Batch;
    expiring = await cli(['tickets', 'issue', '--count', '2', '--level', 'STRICT', '--expires-days', '30'], cliEnv);
    if (!onPostgres) app = await startTestApp({ dataDir, db: undefined });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });
  });
  after(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('the command', () => {
    it('prints the batch once as one JSON document and stores SHA-256 hashes only', async () => {
      expect(batch).to.include({ level: 'ENHANCED', count: 12, expiresAt: null });
      expect(batch.batch).to.match(/^tkb_/);
      expect(batch.codes).to.have.length(12);
      for (const code of batch.codes) expect(code).to.match(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$/);
      const rows = await app.provider
        .db('tickets')
        .where('batch_id', batch.batch)
        .select('code_hash', 'assurance_level', 'redeemed_at');
      expect(rows).to.have.length(12);
      const hashes = rows.map((row: { code_hash: string }) => row.code_hash);
      expect(hashes).to.have.members(batch.codes.map((code) => sha256(code.replace(/-/g, ''))));
      const stored = JSON.stringify(await app.provider.db('tickets').select('*'));
      for (const code of batch.codes) expect(stored).to.not.contain(code).and.not.contain(code.replace(/-/g, ''));
    });

    it('sets an expiry with --expires-days and prints readable text without --json', async () => {
      expect(expiring.code, expiring.stderr).to.equal(0);
      expect(expiring.stdout)
        .to.match(/^Batch tkb_\S+: 2 STRICT ticket code\(s\), valid until \d{4}-/)
        .and.match(/Shown only this once/);
      const batchId = /^Batch (tkb_\S+):/.exec(expiring.stdout)![1];
      const rows = await app.provider.db('tickets').where('batch_id', batchId).select('expires_at', 'assurance_level');
      expect(rows).to.have.length(2);
      for (const row of rows) {
        expect(row.assurance_level).to.equal('STRICT');
        expect(new Date(row.expires_at).getTime() - Date.now()).to.be.within(29 * 86400_000, 30 * 86400_000);
      }
    });

    it('fails clearly on the embedded database while a server holds it', async function () {
      if (onPostgres) this.skip(); // PostgreSQL is shared: the previous test runs there instead
      // The lock is per process: the command runs in a process of its own, as an operator would run it.
      const run = await cliProcess(['tickets', 'issue', '--count', '1', '--level', 'STRICT', '--json'], {
        ...cliEnv,
        LOG_LEVEL: 'silent',
      });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain(`is in use by process ${process.pid}`).and.contain('DATABASE_URL');
      expect(JSON.parse(run.stdout)).to.have.property('error').that.contains('in use');
    });

    it('explains itself with --help and rejects bad options with a non-zero exit', async () => {
      const help = await cli(['tickets', '--help'], cliEnv);
      expect(help.code).to.equal(0);
      expect(help.stdout).to.contain('age-provider tickets issue --count N --level LEVEL');
      for (const [args, message] of [
        [['tickets', 'issue', '--count', '3'], '--level is required'],
        [['tickets', 'issue', '--level', 'STRICT'], '--count is required'],
        [['tickets', 'issue', '--count', '0', '--level', 'STRICT'], '--count must be a whole number'],
        [
          ['tickets', 'issue', '--count', '2', '--level', 'HIGH'],
          '--level "HIGH" is not a level: use one of STANDARD, ENHANCED, STRICT',
        ],
        [['tickets', 'issue', '--count', '2', '--level', 'STRICT', '--expires-days', '1.5'], '--expires-days must be'],
        [['tickets', 'revoke'], 'unknown subcommand'],
      ] as const) {
        const run = await cli([...args], cliEnv);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.stderr).to.contain(message);
      }
      expect((await cli(['tickets', 'issue', '--colour'], cliEnv)).code).to.equal(2);
    });
  });

  describe('redemption', () => {
    async function ticketPage(browser: Browser): Promise<Page> {
      const page = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
      expect(page.url).to.match(/\/challenge\/ticket\/start$/);
      return page;
    }
    const typeCode = (browser: Browser, page: Page, code: string) =>
      browser.submit(formOf(page, { action: '/challenge/ticket/redeem' }), { code });

    it('accepts a code typed loosely, records the batch level, and refuses it the second time', async () => {
      const code = batch.codes[0]!;
      const browser = new Browser(app.url);
      const result = expectPage(
        await typeCode(browser, await ticketPage(browser), ` ${code.toLowerCase().replace(/-/g, ' ')} `),
      );
      expect(result.url).to.match(/\/result$/);
      const resources = await redeem(
        app,
        client,
        callbackOf(await continueWithoutSaving(browser, result), client).get('code')!,
      );
      expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED', reused: false });
      expect(resources['uid']).to.match(/^vrf_/);

      const again = new Browser(app.url);
      const refused = expectPage(await typeCode(again, await ticketPage(again), code));
      expect(refused.status).to.equal(422);
      expect(refused.html).to.contain('This code is not valid');
    });

    it('says when the input cannot be a code at all', async () => {
      const browser = new Browser(app.url);
      const page = expectPage(await typeCode(browser, await ticketPage(browser), 'hello'));
      expect(page.status).to.equal(422);
      expect(page.html).to.contain('This is not a ticket code');
    });

    it('limits wrong codes per interaction', async () => {
      const browser = new Browser(app.url);
      const start = await ticketPage(browser);
      for (let attempt = 1; attempt <= 5; attempt++) {
        expect(expectPage(await typeCode(browser, start, '0000-0000-0000-0000-0000')).status).to.equal(422);
      }
      const limited = expectPage(await typeCode(browser, start, batch.codes[1]!));
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect(limited.html).to.contain('Too many attempts');
      // The limit spent nothing: the good code still works elsewhere.
      const other = new Browser(app.url);
      expect(expectPage(await typeCode(other, await ticketPage(other), batch.codes[1]!)).url).to.match(/\/result$/);
    });

    it('lets exactly one of several concurrent visitors redeem the same code', async () => {
      const code = batch.codes[2]!;
      const visitors = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const browser = new Browser(app.url);
          return { browser, page: await ticketPage(browser) };
        }),
      );
      const outcomes = await Promise.all(visitors.map(({ browser, page }) => typeCode(browser, page, code)));
      const statuses = outcomes.map((landing) => expectPage(landing).status);
      expect(statuses.filter((status) => status === 200)).to.have.length(1);
      expect(statuses.filter((status) => status === 422)).to.have.length(4);
    });

    it('redeems atomically: of 20 parallel redemptions of one code exactly one wins', async () => {
      const code = batch.codes[3]!.replace(/-/g, '');
      const levels = await Promise.all(
        Array.from({ length: 20 }, () => redeemTicket(app.provider.db, app.provider.runtime.clock, code)),
      );
      expect(levels.filter((level) => level === 'ENHANCED')).to.have.length(1);
      expect(levels.filter((level) => level === undefined)).to.have.length(19);
    });

    it('refuses an expired code', async () => {
      await app.provider
        .db('tickets')
        .where('code_hash', sha256(batch.codes[4]!.replace(/-/g, '')))
        .update({ expires_at: new Date(Date.now() - 1000) });
      const browser = new Browser(app.url);
      const page = expectPage(await typeCode(browser, await ticketPage(browser), batch.codes[4]!));
      expect(page.status).to.equal(422);
    });
  });
});
