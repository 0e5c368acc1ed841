import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../../lib/paths.js';
import type { TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import { serveOperations } from '../helpers/metrics.js';
import { authorizationUrl, redeem } from '../helpers/relying-party.js';
import { callbackOf } from '../helpers/visitor.js';
import { makeCertificate, makeRoot, makeSigner } from '../verification/challenges/eu-av/hand-made.js';
import { signedTrustedList } from '../verification/challenges/eu-av/trusted-list-maker.js';

// examples/deploy/monitoring: Prometheus's configuration, the alert rules and their unit tests, the Grafana dashboard.

const MONITORING = join(packageRoot, 'examples', 'deploy', 'monitoring');
const DAY = 86_400_000;

const promtool = (...args: string[]) => spawnSync('promtool', args, { cwd: MONITORING, encoding: 'utf8' });
const havePromtool = spawnSync('sh', ['-c', 'command -v promtool']).status === 0;

/** The metric names a PromQL text names: the service's families and the process's (Prometheus's own `up` aside). */
const namesIn = (query: string): string[] =>
  [...query.matchAll(/\b(?:age_provider|process|nodejs)_\w+/g)].map(([name]) => name);

/** Every query of the rules (their `expr`, one or several lines) and of the dashboard's panels. */
async function queries(): Promise<string[]> {
  const rules = await readFile(join(MONITORING, 'alerts.yml'), 'utf8');
  const expressions = [...rules.matchAll(/^(\s+)expr: (?:\|\n((?:\1 .*\n)+)|(.*)\n)/gm)].map(
    ([, , block, line]) => block ?? line!,
  );
  const dashboard = JSON.parse(await readFile(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets: Array<{ expr: string }> }>;
  };
  return [...expressions, ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr))];
}

/** The sample names of a Prometheus text exposition (a histogram's _bucket, _sum and _count included). */
const exported = (exposition: string): Set<string> =>
  new Set(
    exposition
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => /^[a-zA-Z_:][\w:]*/.exec(line)![0]),
  );

describe('monitoring (examples/deploy/monitoring)', function () {
  this.timeout(300_000);

  describe('the Prometheus configuration and the alert rules', () => {
    before(function () {
      if (!havePromtool) {
        console.log('    skipped: promtool is not installed (Debian: apt-get install -y prometheus)');
        this.skip();
      }
    });

    it('pass promtool check config and check rules', () => {
      const config = promtool('check', 'config', 'prometheus.yml');
      expect(config.status, config.stdout + config.stderr).to.equal(0);
      const rules = promtool('check', 'rules', 'alerts.yml');
      expect(rules.status, rules.stdout + rules.stderr).to.equal(0);
    });

    it("pass their unit tests (promtool test rules), which fail when a rule's threshold is changed", async () => {
      const run = promtool('test', 'rules', 'alerts.test.yml');
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      // The same tests against rules whose 5xx ratio threshold was raised tenfold: they must fail.
      const folder = await mkdtemp(join(tmpdir(), 'age-provider-rules-'));
      try {
        const rules = await readFile(join(MONITORING, 'alerts.yml'), 'utf8');
        expect(rules).to.contain('> 0.01');
        await writeFile(join(folder, 'alerts.yml'), rules.replace('> 0.01', '> 0.1'));
        await writeFile(join(folder, 'alerts.test.yml'), await readFile(join(MONITORING, 'alerts.test.yml')));
        const broken = spawnSync('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: folder, encoding: 'utf8' });
        expect(broken.status).not.to.equal(0);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });
  });

  describe('the queries of the rules and the dashboard', () => {
    let app: TestApp;
    let client: ClientFixture;
    let operations: { url: string; close(): Promise<void> };
    let listFolder: string;

    before(async () => {
      // eu_av following a current trusted list (a file signed by hand), so its families are exported.
      listFolder = await mkdtemp(join(tmpdir(), 'age-provider-list-'));
      const signer = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
      const listed = await makeSigner('Listed', await makeRoot('Listed'));
      await writeFile(join(listFolder, 'signer.pem'), signer.pem);
      await writeFile(
        join(listFolder, 'list.xml'),
        signedTrustedList({
          signer,
          services: [{ certificate: listed.der }],
          issued: new Date(Date.now() - DAY),
          nextUpdate: new Date(Date.now() + 30 * DAY),
        }),
      );
      ({ app, client } = await startAppWithClient(
        { environment: 'TEST' },
        {
          env: {
            EU_AV_TRUSTED_LIST: join(listFolder, 'list.xml'),
            EU_AV_TRUSTED_LIST_SIGNER: join(listFolder, 'signer.pem'),
            REQUIREMENT_RATE_LIMIT_PER_IP: '1',
            // The statistics rollup counts the verifications soon after the flows.
            STATISTICS_ROLLUP_INTERVAL_MS: '200',
          },
        },
      ));
      operations = await serveOperations(app);
    });
    after(async () => {
      await operations?.close();
      await app?.close();
      await rm(listFolder, { recursive: true, force: true });
    });

    it('name only metrics a running service exports, after a few flows, a refusal and a failed statement', async () => {
      for (const outcome of ['pass', 'refuse'] as const) {
        const landing = await new Browser(app.url).open(
          authorizationUrl(app.url, client, 'checker', { test_outcome: outcome }),
          { stopAt: client.redirectUri },
        );
        const code = callbackOf(landing, client).get('code');
        if (code) await redeem(app, client, code);
      }
      await fetch(`${app.url}/v1/policies`);
      expect((await fetch(`${app.url}/v1/policies`)).status).to.equal(429);
      // A statement that fails, as a dropped table or a timeout would make one.
      await app.provider.db.raw('select * from a_table_nobody_made').catch(() => undefined);

      const scrape = async () => exported(await (await fetch(`${operations.url}/metrics`)).text());
      let names = await scrape();
      for (let tries = 0; !names.has('age_provider_verifications_total') && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        names = await scrape();
      }
      const used = [...new Set((await queries()).flatMap(namesIn))];
      expect(used.length, 'the rules and dashboard name metrics').to.be.greaterThan(15);
      expect(used.filter((name) => !names.has(name))).to.deep.equal([]);
      // The comparison can fail: a misspelt family is not exported.
      expect(names.has('age_provider_flow_started_total')).to.equal(false);
      // Every family of the service is shown somewhere (the dashboard or an alert).
      const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
      const shown = new Set(used.map(family));
      expect([...names].filter((name) => name.startsWith('age_provider_') && !shown.has(family(name)))).to.deep.equal(
        [],
      );
    });
  });
});
