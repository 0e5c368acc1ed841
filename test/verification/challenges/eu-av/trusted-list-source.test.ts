import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../../lib/clock.js';
import { createLogger } from '../../../../lib/log.js';
import { fixedTrust } from '../../../../lib/verification/challenges/eu-av/trust-anchors.js';
import {
  followTrustedList,
  type TrustedListSettings,
} from '../../../../lib/verification/challenges/eu-av/trusted-list-source.js';
import { makeCertificate, makeRoot, makeSigner, type Issued } from './hand-made.js';
import { startListServer, type ListServer } from './list-server.js';
import { signedTrustedList } from './trusted-list-maker.js';

/** How the service follows its trusted list when the list cannot be had: from a file, from a private address, too slowly. */
describe('eu_av: following the trusted list', function () {
  this.timeout(20_000);
  let folder: string;
  let listSigner: Issued;
  let listed: Issued;
  let server: ListServer;
  const closers: Array<() => Promise<void>> = [];
  let lines: string[];
  const runtime = () => ({
    clock: systemClock,
    log: createLogger('debug', (line) => lines.push(line)),
    onClose: (task: () => Promise<void> | void) => closers.push(async () => task()),
  });
  const noFiles = fixedTrust({ authorities: [], signers: [] });
  const settings = (location: string, allowPrivate = false, timeoutMs = 2000): TrustedListSettings => ({
    location,
    signers: [new X509Certificate(listSigner.der)],
    refreshMs: 3_600_000,
    graceMs: 0,
    fetch: { timeoutMs, allowPrivate, ca: [new X509Certificate(server.certificate).raw] },
  });

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'eu-av-list-'));
    listSigner = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
    listed = await makeSigner('Listed', await makeRoot('Listed'));
    server = await startListServer();
    server.serve(
      signedTrustedList({ signer: listSigner, services: [{ certificate: listed.der }], issued: new Date() }),
    );
  });
  beforeEach(() => {
    lines = [];
  });
  after(async () => {
    for (const close of closers) await close();
    await server.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('reads a list from a file, and reports it', async () => {
    const file = join(folder, 'list.xml');
    await writeFile(
      file,
      signedTrustedList({ signer: listSigner, services: [{ certificate: listed.der }], issued: new Date() }),
    );
    const list = await followTrustedList(runtime(), settings(file), noFiles);
    expect(list.report()).to.include({
      source: 'file',
      outcome: 'ok',
      anchors: 1,
      list_type: 'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/TSLType/AVTL',
    });
    expect(list.source.current().signers.map((certificate) => certificate.raw.equals(listed.der))).to.deep.equal([
      true,
    ]);
    expect(
      lines.some((line) => line.includes('eu_av trusted list refreshed') && line.includes('"anchors":1')),
    ).to.equal(true);
  });

  it('never fetches from a private address unless the operator allows it', async () => {
    const refused = await followTrustedList(runtime(), settings(server.url), noFiles);
    expect(refused.report()).to.include({ outcome: 'failed', anchors: 0, kept_last_good: false });
    expect(refused.report().problem).to.match(/EPRIVATE/);
    expect(refused.source.current().signers).to.have.length(0);
    // A name that resolves to loopback is refused where the connection resolves it.
    const byName = await followTrustedList(runtime(), settings(server.url.replace('127.0.0.1', 'localhost')), noFiles);
    expect(byName.report().problem).to.match(/EPRIVATE/);
    const allowed = await followTrustedList(runtime(), settings(server.url, true), noFiles);
    expect(allowed.report()).to.include({ outcome: 'ok', anchors: 1 });
  });

  it('gives up on an address that does not answer in time, and on a file that is missing', async () => {
    server.serve(null); // the request is taken and never answered
    try {
      const list = await followTrustedList(runtime(), settings(server.url, true, 300), noFiles);
      expect(list.report().problem).to.match(/did not answer in time/);
    } finally {
      server.serve(
        signedTrustedList({ signer: listSigner, services: [{ certificate: listed.der }], issued: new Date() }),
      );
    }
    expect(
      (await followTrustedList(runtime(), settings(join(folder, 'missing.xml')), noFiles)).report().problem,
    ).to.match(/cannot be read/);
  });

  it('a list that yields no anchor is a failure, logged and reported, never "ok"; a list in use stays in use', async () => {
    const file = join(folder, 'empty.xml');
    const nobody = signedTrustedList({
      signer: listSigner,
      services: [{ certificate: listed.der, status: 'withdrawn' }],
      issued: new Date(),
    });
    await writeFile(file, nobody);
    const list = await followTrustedList(runtime(), settings(file), noFiles);
    expect(list.report()).to.include({ outcome: 'failed', anchors: 0, kept_last_good: false });
    expect(list.report().problem).to.match(/yields no anchor \(1 service\(s\) not in good standing, 0 of a type/);
    expect(
      lines.some((line) => line.includes('eu_av trusted list refresh failed') && line.includes('yields no anchor')),
    ).to.equal(true);
    expect(lines.some((line) => line.includes('eu_av trusted list refreshed'))).to.equal(false);

    server.serve(
      signedTrustedList({
        signer: listSigner,
        services: [{ certificate: listed.der }],
        issued: new Date(Date.now() - 60_000),
      }),
    );
    const followed = await followTrustedList(runtime(), { ...settings(server.url, true), refreshMs: 50 }, noFiles);
    try {
      expect(followed.report()).to.include({ outcome: 'ok', anchors: 1 });
      server.serve(nobody);
      for (let attempt = 0; attempt < 100 && followed.report().outcome === 'ok'; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(followed.report()).to.include({ outcome: 'failed', anchors: 1, kept_last_good: true });
      expect(followed.source.current().signers).to.have.length(1);
    } finally {
      server.serve(
        signedTrustedList({ signer: listSigner, services: [{ certificate: listed.der }], issued: new Date() }),
      );
    }
  });

  describe("a list past its NextUpdate (the EC's test list, NextUpdate 2025-12-29T01:00:00Z)", () => {
    const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;
    const GRACE_MS = 3 * 24 * 3600 * 1000;
    let now: Date;
    const clocked = () => ({ ...runtime(), clock: { now: () => now } });
    const ecList = (): TrustedListSettings => ({
      location: fixture('ec-av-test-trusted-list.xml'),
      signers: [new X509Certificate(readFileSync(fixture('ec-test-lotl-signer-1.pem')))],
      refreshMs: 3_600_000,
      graceMs: GRACE_MS,
      fetch: { timeoutMs: 2000, allowPrivate: false },
    });

    it('is used within the grace; past it, it is not: no anchor of it counts, eu_av is not available, the log and the report say why', async () => {
      now = new Date('2025-12-30T00:00:00Z');
      const list = await followTrustedList(clocked(), ecList(), noFiles);
      expect(list.report()).to.include({ outcome: 'ok', anchors: 4, next_update: '2025-12-29T01:00:00.000Z' });
      expect(list.available()).to.equal(true);
      expect(list.source.current().signers).to.have.length(4);

      now = new Date('2026-01-01T01:00:01Z');
      expect(list.available()).to.equal(false);
      expect(list.source.current().signers).to.have.length(0);
      const report = list.report();
      expect(report).to.include({ outcome: 'failed', stale: true, anchors: 4 });
      expect(report.problem).to.match(
        /past its next update \(2025-12-29T01:00:00.000Z\) and the grace: not used, eu_av is not offered/,
      );
      expect(lines.filter((line) => line.includes('past its next update and the grace'))).to.have.length(1);
    });

    it("the files' anchors do not keep eu_av offered beside a stale list, whether it was in use or read past the grace at start-up", async () => {
      now = new Date('2026-01-05T00:00:00Z');
      const files = fixedTrust({ authorities: [], signers: [new X509Certificate(listed.der)] });
      const list = await followTrustedList(clocked(), ecList(), files);
      expect(list.report()).to.include({ outcome: 'failed', anchors: 0, kept_last_good: false, stale: true });
      expect(list.report().problem).to.match(/past its next update \(2025-12-29T01:00:00.000Z\) and the grace/);
      expect(list.available()).to.equal(false);
      expect(list.source.current().signers).to.have.length(1);

      now = new Date('2025-12-30T00:00:00Z');
      const loaded = await followTrustedList(clocked(), ecList(), files);
      now = new Date('2026-01-05T00:00:00Z');
      expect(loaded.available()).to.equal(false);
      expect(loaded.source.current().signers).to.have.length(1);
    });
  });
});
