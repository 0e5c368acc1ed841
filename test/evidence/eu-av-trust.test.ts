import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FlattenedJWS } from 'jose';
import type { EvidencePayload } from '../../lib/evidence/document.js';
import { request } from '../external/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { makeCertificate, makeRoot, makeSigner, type Issued } from '../verification/challenges/eu-av/hand-made.js';
import { signedTrustedList } from '../verification/challenges/eu-av/trusted-list-maker.js';

const DAY_MS = 86_400_000;
const dayOf = (offset: number): string => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const fingerprint = (issued: Issued): string => new X509Certificate(issued.der).fingerprint256;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The eu_av trust an evidence pack names: recorded when an instance takes it into use, read back for any period. */
describe('The evidence pack names the eu_av trust in force over its period', function () {
  this.timeout(120_000);
  let folder: string;
  let database: TestDatabase;
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  let root: Issued;
  let listSigner: Issued;
  let onFirst: Issued;
  let onSecond: Issued;
  let token: string;
  let websiteId: number;
  let env: Record<string, string>;

  const trusts = async (app: TestApp, from: string, to: string) => {
    const answer = await request<FlattenedJWS>(
      app.url,
      'GET',
      `/external/website/${websiteId}/evidence?from=${from}&to=${to}`,
      { token },
    );
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return (JSON.parse(Buffer.from(answer.body.payload, 'base64url').toString('utf8')) as EvidencePayload).euAv;
  };
  const rows = async () => Number((await database.db('eu_av_trust').count<{ n: string }[]>('* AS n'))[0]!.n);

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'evidence-trust-'));
    root = await makeRoot('Files');
    listSigner = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
    onFirst = await makeSigner('On the first list', await makeRoot('First'));
    onSecond = await makeSigner('On the second list', await makeRoot('Second'));
    await writeFile(join(folder, 'root.pem'), root.pem);
    await writeFile(join(folder, 'list-signer.pem'), listSigner.pem);
    await writeFile(
      join(folder, 'list.xml'),
      signedTrustedList({
        signer: listSigner,
        services: [{ certificate: onFirst.der }],
        issued: new Date(Date.now() - DAY_MS),
        sequenceNumber: 41,
      }),
    );
    env = {
      EU_AV_TRUSTED_ISSUERS: join(folder, 'root.pem'),
      EU_AV_TRUSTED_LIST: join(folder, 'list.xml'),
      EU_AV_TRUSTED_LIST_SIGNER: join(folder, 'list-signer.pem'),
      EU_AV_TRUSTED_LIST_REFRESH_SECONDS: '1',
    };
    database = await createTestDatabase();
    first = await startTestApp({ env }, { shared: database });
    const webmaster = await createWebmasterFixture(first.provider.runtime);
    token = webmaster.apiToken;
    ({ websiteId } = await createClientFixture(first.provider.runtime, webmaster.id));
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await database?.drop();
    await rm(folder, { recursive: true, force: true });
  });

  it("records the files' anchors and the list's, with its sequence number, once", async () => {
    const { configured, trusts: today } = await trusts(first!, dayOf(0), dayOf(0));
    expect(configured).to.equal(true);
    expect(today).to.have.length(1);
    expect(today[0]!.trust).to.deep.include({ files: [fingerprint(root)] });
    expect(today[0]!.trust.list).to.deep.include({ sequenceNumber: 41, anchors: [fingerprint(onFirst)] });
    // Refreshes of the same list every second, and a second instance starting on it, add nothing.
    second = await startTestApp({ env }, { shared: database });
    await sleep(2500);
    expect(await rows()).to.equal(1);
  });

  it('adds the next list when an instance takes it into use, and carries the one in force into a later period', async () => {
    await writeFile(
      join(folder, 'list.xml'),
      signedTrustedList({
        signer: listSigner,
        services: [{ certificate: onSecond.der }],
        issued: new Date(),
        sequenceNumber: 42,
      }),
    );
    for (let waited = 0; (await rows()) < 2; waited += 100) {
      expect(waited, 'the new list recorded').to.be.below(10_000);
      await sleep(100);
    }
    await sleep(2500);
    expect(await rows(), 'two instances, one new list: one more row').to.equal(2);
    const { trusts: today } = await trusts(first!, dayOf(0), dayOf(0));
    expect(today.map((period) => period.trust.list?.sequenceNumber)).to.deep.equal([41, 42]);
    expect(today[1]!.trust.list!.anchors).to.deep.equal([fingerprint(onSecond)]);
    // A period after both: the trust in force at its start only. A period before either: none recorded.
    const { trusts: later } = await trusts(first!, dayOf(1), dayOf(2));
    expect(later.map((period) => period.trust.list?.sequenceNumber)).to.deep.equal([42]);
    expect((await trusts(first!, dayOf(-30), dayOf(-29))).trusts).to.deep.equal([]);
  });
});
