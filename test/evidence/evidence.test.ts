import { expect } from 'chai';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, FlattenedSign, flattenedVerify, importJWK, type FlattenedJWS, type JWK } from 'jose';
import type { EvidencePayload } from '../../lib/evidence/document.js';
import { packageRoot, packageVersion } from '../../lib/paths.js';
import { verificationRow } from '../../lib/verification/verifications.js';
import { cli } from '../cli/run.js';
import { apiClient, expectError, request, type ApiClient } from '../external/api.js';
import { testSecrets, useApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';

const today = (): string => new Date().toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const payloadOf = (pack: FlattenedJWS): EvidencePayload =>
  JSON.parse(Buffer.from(pack.payload, 'base64url').toString('utf8')) as EvidencePayload;

/** A pack whose payload was edited and that carries the service's own signature again: only consistency can tell. */
async function resigned(pack: FlattenedJWS, edit: (payload: EvidencePayload) => void): Promise<FlattenedJWS> {
  const payload = payloadOf(pack);
  edit(payload);
  const jwk = testSecrets.jwks.keys[0] as JWK;
  return new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid!, typ: 'age-provider-evidence+json' })
    .sign(await importJWK(jwk, 'RS256'));
}

/** The same payload signed by a key the service never published, under the service's kid. */
async function signedByAnotherKey(pack: FlattenedJWS): Promise<FlattenedJWS> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = (testSecrets.jwks.keys[0] as JWK).kid!;
  return new FlattenedSign(Buffer.from(pack.payload, 'base64url'))
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'age-provider-evidence+json' })
    .sign(privateKey);
}

/** The script docs/evidence.md gives auditors: its one js block under "The same check with a stock JOSE library". */
async function documentedScript(): Promise<string> {
  const page = await readFile(join(packageRoot, 'docs/evidence.md'), 'utf8');
  const section = page.slice(page.indexOf('### The same check with a stock JOSE library'));
  const script = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!script) throw new Error('docs/evidence.md shows no js block under its stock JOSE heading');
  return script;
}

/** Runs `script` with node, as an auditor would: exit code and output. */
const runScript = (script: string, args: string[]) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [script, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });

describe('The evidence pack: GET /external/website/{id}/evidence and age-provider evidence', function () {
  this.timeout(60_000);
  const app = useApp({ env: { POLICY_PRESETS: 'fr', STATISTICS_ROLLUP_INTERVAL_MS: '100' } });
  let webmaster: WebmasterFixture;
  let api: ApiClient;
  let websiteId: number;
  let folder: string;
  let pack: FlattenedJWS;
  const period = () => `from=${today()}&to=${today()}`;

  /** `evidence verify` on `content` against the app's published keys. */
  const verify = async (content: unknown) => {
    const file = join(folder, `${randomUUID()}.json`);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return cli({}, ['evidence', 'verify', file, '--jwks', `${app.url}/v1/oauth2/jwks`]);
  };
  /** The stock library's check of the signature alone, against the published keys. */
  const joseVerifies = async (content: FlattenedJWS): Promise<boolean> => {
    try {
      await flattenedVerify(content, createRemoteJWKSet(new URL(`${app.url}/v1/oauth2/jwks`)), {
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      });
      return true;
    } catch {
      return false;
    }
  };

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'evidence-'));
    const runtime = app.provider.runtime;
    webmaster = await createWebmasterFixture(runtime);
    api = apiClient(app.url, webmaster.apiToken);
    ({ websiteId } = await createClientFixture(runtime, webmaster.id, { regions: ['DE'] }));
    expect((await api.patch(`/website/${websiteId}`, { regions: ['DE', 'FR'] })).status).to.equal(200);
    expect(
      (
        await api.put(`/website/${websiteId}/policy`, {
          rules: [{ regions: ['DE'], required: true, ageThreshold: 18 }],
        })
      ).status,
    ).to.equal(200);
    for (const [level, challenge, subdivision] of [
      ['ENHANCED', 'eu_av', 'DE-BY'],
      ['ENHANCED', 'eu_av', null],
      ['STANDARD', 'sandbox', 'DE-BY'],
    ] as const)
      await runtime.db('verifications').insert(
        verificationRow({
          websiteId,
          environment: 'TEST',
          challenge,
          assuranceLevel: level,
          ageThreshold: 18,
          country: 'DE',
          countrySubdivision: subdivision,
          verified: true,
          reused: false,
          verifiedAt: new Date(),
          ttlSeconds: 3600,
          policy: [],
        }),
      );
    for (let waited = 0; ; waited += 50) {
      const day = await runtime.db('statistics_daily').where('website_id', websiteId).first<{ passed: number }>();
      if (day?.passed === 3) break;
      expect(waited, 'rolled up').to.be.below(10_000);
      await sleep(50);
    }
    const answer = await api.get<FlattenedJWS>(`/website/${websiteId}/evidence?${period()}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    pack = answer.body;
  });
  after(() => rm(folder, { recursive: true, force: true }));

  it('answers one signed document that a stock JOSE library verifies with the keys published at the JWKS endpoint', async () => {
    expect(Object.keys(pack).sort()).to.deep.equal(['payload', 'protected', 'signature']);
    const header = JSON.parse(Buffer.from(pack.protected!, 'base64url').toString('utf8')) as Record<string, string>;
    expect(header).to.deep.equal({
      alg: 'RS256',
      kid: (testSecrets.jwks.keys[0] as JWK).kid,
      typ: 'age-provider-evidence+json',
    });
    expect(await joseVerifies(pack)).to.equal(true);
  });

  it('holds the period: the version, the counts per day by challenge, country, outcome and level, the rules, the chain, the retention', () => {
    const document = payloadOf(pack);
    expect(document).to.deep.include({ format: 1, issuer: app.url, period: { from: today(), to: today() } });
    expect(document.service).to.deep.equal({ name: 'age-provider', version: packageVersion() });
    expect(document.website).to.deep.include({ id: websiteId });
    expect(document.statistics.days).to.have.length(1);
    expect(document.statistics.days[0]).to.deep.include({
      date: today(),
      environment: 'TEST',
      passed: 3,
      byChallenge: {
        eu_av: { passed: 2, refused: 0, reused: 0 },
        sandbox: { passed: 1, refused: 0, reused: 0 },
      },
      byCountry: { DE: 3 },
      bySubdivision: { 'DE-BY': 2 },
      byLevel: { ENHANCED: 2, STANDARD: 1 },
    });
    expect(document.statistics.totals.TEST).to.deep.include({ passed: 3, byLevel: { ENHANCED: 2, STANDARD: 1 } });
    expect(document.statistics.totals.LIVE.passed).to.equal(0);
    // The operator's preset with its version and sources; the website's own rules and the entries that set them.
    expect(document.rules.presets.map((preset) => [preset.id, preset.version])).to.deep.equal([['fr', '1']]);
    expect(document.rules.presets[0]!.rules[0]!.sources[0]!.url).to.match(/^https:\/\//);
    expect(document.rules.website.now.regions).to.deep.equal(['DE', 'FR']);
    expect(document.rules.website.changes.map((entry) => entry.action)).to.deep.equal([
      'website.created',
      'website.updated',
      'policy.updated',
    ]);
    // The whole chain so far: from genesis to the head, which is the head now.
    const { audit } = document;
    expect(audit.chain).to.equal(`website:${websiteId}`);
    expect(audit.start).to.deep.equal({ seq: 0, hash: '' });
    expect(audit.entries.map((entry) => entry.seq)).to.deep.equal(audit.entries.map((_, index) => index + 1));
    expect(audit.end).to.deep.equal({ seq: audit.entries.at(-1)!.seq, hash: audit.entries.at(-1)!.hash });
    expect(audit.head).to.deep.equal(audit.end);
    expect(document.euAv).to.deep.equal({ configured: false, trusts: [] });
    expect(document.retention).to.deep.include({ verificationRetentionSeconds: 86400 });
    expect(document.retention.tables.map((table) => table.table)).to.include('verifications');
  });

  it('evidence verify: one line per check, exit 0', async () => {
    const run = await verify(pack);
    expect(run.code, run.stdout + run.stderr).to.equal(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(':')[0])).to.deep.equal([
      'ok   signature',
      'ok   document',
      'ok   audit chain',
      'ok   rules',
      'ok   statistics',
      'Evidence pack valid (keys',
    ]);
    expect(run.stdout).to.contain('totals equal the sum of 1 days');
    const json = await cli({}, ['evidence', 'verify', join(folder, 'x'), '--json']);
    expect(json.code).to.equal(1);
  });

  it('detects an edited copy: a count changed, an entry removed, a head changed (unsigned again or signed again)', async () => {
    const edits: Array<[string, (payload: EvidencePayload) => void, string]> = [
      ['a count changed', (payload) => (payload.statistics.days[0]!.passed += 1), 'FAIL statistics'],
      ['a total changed', (payload) => (payload.statistics.totals.TEST.byLevel.STRICT = 1), 'FAIL statistics'],
      ['an audit entry removed', (payload) => payload.audit.entries.splice(1, 1), 'FAIL audit chain'],
      ['the last entry removed', (payload) => payload.audit.entries.pop(), 'FAIL audit chain'],
      ['a head changed', (payload) => (payload.audit.end.hash = '0'.repeat(64)), 'FAIL audit chain'],
      ['an entry edited', (payload) => (payload.audit.entries[0]!.address = '203.0.113.7'), 'FAIL audit chain'],
      ['a rule change left out', (payload) => payload.rules.website.changes.pop(), 'FAIL rules'],
    ];
    for (const [what, edit, expected] of edits) {
      // Edited and left with the service's signature: the signature no longer verifies.
      const payload = payloadOf(pack);
      edit(payload);
      const tampered = { ...pack, payload: Buffer.from(JSON.stringify(payload)).toString('base64url') };
      const unsigned = await verify(tampered);
      expect(unsigned.code, what).to.equal(1);
      expect(unsigned.stdout, what).to.match(/^FAIL signature: does not verify with key/);
      expect(await joseVerifies(tampered), what).to.equal(false);
      // Signed again with the service's key (as a faulty service would): the document's consistency gives it away.
      const run = await verify(await resigned(pack, edit));
      expect(run.code, what).to.equal(1);
      expect(run.stdout, what).to.contain('ok   signature').and.contain(expected);
    }
  });

  it('refuses a signature from another key, alg none, and a JWS of another type', async () => {
    const other = await signedByAnotherKey(pack);
    expect(await joseVerifies(other)).to.equal(false);
    expect((await verify(other)).stdout).to.match(/^FAIL signature: does not verify with key/);
    const none = {
      protected: Buffer.from(JSON.stringify({ alg: 'none', typ: 'age-provider-evidence+json' })).toString('base64url'),
      payload: pack.payload,
      signature: '',
    };
    expect(await joseVerifies(none as FlattenedJWS)).to.equal(false);
    const refused = await verify(none);
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.match(/^FAIL signature: /);
    const token = await new FlattenedSign(Buffer.from(pack.payload, 'base64url'))
      .setProtectedHeader({ alg: 'RS256', kid: (testSecrets.jwks.keys[0] as JWK).kid!, typ: 'JWT' })
      .sign(await importJWK(testSecrets.jwks.keys[0] as JWK, 'RS256'));
    expect((await verify(token)).stdout).to.contain('FAIL signature: the JWS is of type JWT');
    for (const junk of ['not json', '{}', '[1]']) {
      const run = await verify(junk);
      expect(run.code, junk).to.equal(1);
      expect(run.stdout.split('\n')[0], junk).to.match(/^FAIL signature: /);
    }
  });

  it('the documented stock-JOSE script, run verbatim, accepts the pack and refuses every edited copy', async function () {
    this.timeout(180_000);
    // Beside the package's node_modules, so that its bare `jose` import resolves as it does in an auditor's project.
    const place = await mkdtemp(join(packageRoot, 'node_modules', '.evidence-script-'));
    try {
      const script = join(place, 'check-evidence.mjs');
      await writeFile(script, await documentedScript());
      const check = async (content: unknown) => {
        const file = join(place, `${randomUUID()}.json`);
        await writeFile(file, JSON.stringify(content));
        return runScript(script, [file, `${app.url}/v1/oauth2/jwks`]);
      };
      const valid = await check(pack);
      expect(valid.code, valid.output).to.equal(0);
      expect(valid.output).to.contain(`valid: website ${websiteId}, ${today()} to ${today()}`);
      const edits: Array<[string, (payload: EvidencePayload) => void]> = [
        ['a count changed', (payload) => (payload.statistics.days[0]!.passed += 1)],
        ['a level total changed', (payload) => (payload.statistics.totals.TEST.byLevel.ENHANCED = 1)],
        ['an audit entry removed', (payload) => payload.audit.entries.splice(1, 1)],
        ['a head changed', (payload) => (payload.audit.end.hash = '0'.repeat(64))],
      ];
      // Edited and left with the service's signature (any edit: the signature covers every byte).
      const payload = payloadOf(pack);
      payload.statistics.days[0]!.passed += 1;
      const unsigned = await check({ ...pack, payload: Buffer.from(JSON.stringify(payload)).toString('base64url') });
      expect(unsigned.code).to.not.equal(0);
      expect(unsigned.output).to.contain('signature verification failed');
      for (const [what, edit] of edits) {
        const again = await check(await resigned(pack, edit));
        expect(again.code, what).to.not.equal(0);
        expect(again.output, what).to.match(/differ|does not/);
      }
      const other = await check(await signedByAnotherKey(pack));
      expect(other.code).to.not.equal(0);
      const none = await check({
        protected: Buffer.from(JSON.stringify({ alg: 'none', typ: 'age-provider-evidence+json' })).toString(
          'base64url',
        ),
        payload: pack.payload,
        signature: '',
      });
      expect(none.code).to.not.equal(0);
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  });

  it("refuses another webmaster's website and an unknown one, and bad or too long periods, in the API's error shape", async () => {
    const stranger = await createWebmasterFixture(app.provider.runtime);
    const theirs = apiClient(app.url, stranger.apiToken);
    expectError(await theirs.get(`/website/${websiteId}/evidence?${period()}`), 401);
    expectError(await api.get(`/website/999999999/evidence?${period()}`), 404);
    for (const query of [
      '',
      'from=2026-01-01',
      'from=2026-02-30&to=2026-03-01',
      'from=0000-01-01&to=0000-01-02',
      'from=2026-03-01&to=2026-02-01',
      'from=2025-01-01&to=2026-01-02',
      'from=2026-01-01&to=2026-01-02&x=1',
      'from=yesterday&to=today',
    ]) {
      const response = await api.get(`/website/${websiteId}/evidence?${query}`);
      expectError(response, 400);
    }
    expect((await request(app.url, 'GET', `/external/website/${websiteId}/evidence?${period()}`, {})).status).to.equal(
      401,
    );
    // The calendar's edges PostgreSQL holds are periods like any other: empty, signed, never a 5xx.
    for (const query of ['from=0001-01-01&to=0001-12-31', 'from=9999-01-01&to=9999-12-31']) {
      const response = await api.get<FlattenedJWS>(`/website/${websiteId}/evidence?${query}`);
      expect(response.status, `${query}: ${JSON.stringify(response.body)}`).to.equal(200);
      const edge = payloadOf(response.body);
      expect(edge.statistics.days).to.deep.equal([]);
      expect(edge.audit.entries).to.deep.equal([]);
    }
  });
});
