import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readTrustedList, TrustedListError } from '../../../../lib/verification/challenges/eu-av/trusted-list.js';
import { makeCertificate, makeRoot, makeSigner, type Issued } from './hand-made.js';
import { SERVICE_TYPES, signedTrustedList, type ListShape } from './trusted-list-maker.js';

const DAY = 24 * 60 * 60 * 1000;

/** The ETSI trusted list as the verifier reads it: its signature against the configured certificate, then its services. */
describe('eu_av: the ETSI TS 119 612 trusted list', function () {
  this.timeout(20_000);
  let listSigner: Issued;
  let configured: X509Certificate[];
  let granted: Issued;
  let withdrawn: Issued;
  let shape: ListShape;

  before(async () => {
    listSigner = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
    configured = [new X509Certificate(listSigner.der)];
    const root = await makeRoot('Listed');
    granted = await makeSigner('Granted', root);
    withdrawn = await makeSigner('Withdrawn', root);
    shape = {
      signer: listSigner,
      services: [
        { certificate: granted.der },
        { certificate: root.der },
        { certificate: withdrawn.der, status: 'withdrawn' },
      ],
      issued: new Date(Date.now() - DAY),
      nextUpdate: new Date(Date.now() + 30 * DAY),
    };
  });

  const refusal = (xml: string, signers = configured, now = new Date()): string => {
    try {
      readTrustedList(xml, signers, now);
    } catch (error) {
      expect(error).to.be.instanceOf(TrustedListError);
      return (error as Error).message;
    }
    throw new Error('the list was accepted');
  };

  it("a list signed with the configured certificate yields its granted services' certificates, not the withdrawn one's", () => {
    const list = readTrustedList(signedTrustedList(shape), configured, new Date());
    expect(list.certificates.map((der) => der.toString('base64'))).to.deep.equal([
      granted.der.toString('base64'),
      shape.services[1]!.certificate.toString('base64'),
    ]);
    expect(list.inactiveServices).to.equal(1);
    expect(list.issued.toISOString()).to.equal(`${shape.issued.toISOString().split('.')[0]}.000Z`);
  });

  it('a list signed by another key is refused, even though it names that key in its KeyInfo', async () => {
    const other = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
    expect(refusal(signedTrustedList({ ...shape, signer: other }))).to.match(
      /does not verify with the configured signer/,
    );
    // the configured certificate among several (a rollover) is enough
    expect(
      readTrustedList(signedTrustedList(shape), [new X509Certificate(other.der), ...configured], new Date())
        .certificates,
    ).to.have.length(2);
  });

  it('a tampered list is refused: a service added, a status turned back to granted', async () => {
    const intruder = await makeSigner('Intruder', undefined);
    const added = (list: string): string =>
      list.replace(
        '</TSPServices>',
        `<TSPService><ServiceInformation><ServiceDigitalIdentity><DigitalId><X509Certificate>${intruder.der.toString('base64')}</X509Certificate></DigitalId></ServiceDigitalIdentity><ServiceStatus>http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted</ServiceStatus></ServiceInformation></TSPService></TSPServices>`,
      );
    expect(refusal(signedTrustedList({ ...shape, tamper: added }))).to.match(/does not verify/);
    expect(
      refusal(
        signedTrustedList({ ...shape, tamper: (list) => list.replace('Svcstatus/withdrawn', 'Svcstatus/granted') }),
      ),
    ).to.match(/does not verify/);
  });

  it('an HMAC "signature" keyed with the public certificate is refused (key confusion)', () => {
    expect(refusal(signedTrustedList({ ...shape, signatureMethod: 'hmac-sha1' }))).to.match(/does not verify/);
  });

  it('a list past its next update, one without a signature, one with a document type declaration, or not a list at all is refused', () => {
    expect(refusal(signedTrustedList(shape), configured, new Date(Date.now() + 31 * DAY))).to.match(
      /past its next update/,
    );
    expect(
      refusal(signedTrustedList({ ...shape, tamper: (list) => list.replace(/<Signature[\s\S]*<\/Signature>/, '') })),
    ).to.match(/exactly one enveloped signature/);
    expect(
      refusal(
        signedTrustedList({
          ...shape,
          tamper: (list) => list.replace('<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE x [<!ENTITY a "a">]>'),
        }),
      ),
    ).to.match(/document type declaration/);
    expect(refusal('<html><body>maintenance</body></html>')).to.match(/not an ETSI TS 119 612 trusted list/);
    expect(refusal('<TrustServiceStatusList')).to.match(/not well-formed/);
  });

  it('a signed list whose reference is turned, after signing, to the signature alone is refused', () => {
    expect(
      refusal(
        signedTrustedList({ ...shape, tamper: (list) => list.replace('<Reference URI="">', '<Reference URI="#sig">') }),
      ),
    ).to.match(/does not verify/);
  });

  it('a status in good standing is named in full: the AV list\'s "recognized" counts; a look-alike URI ending in "granted" does not', async () => {
    const root = await makeRoot('Statuses');
    const recognized = await makeSigner('Recognized', root);
    const lookalike = await makeSigner('Look-alike', root);
    const list = readTrustedList(
      signedTrustedList({
        ...shape,
        services: [
          {
            certificate: recognized.der,
            status: 'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/Svcstatus/recognized',
          },
          { certificate: lookalike.der, status: 'http://attacker.example/TrstSvc/TrustedList/Svcstatus/granted' },
          {
            certificate: root.der,
            status: 'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/Svcstatus/deprecated',
          },
        ],
      }),
      configured,
      new Date(),
    );
    expect(list.certificates).to.deep.equal([recognized.der]);
    expect(list.inactiveServices).to.equal(2);
  });

  it("only age-attestation and PID issuing services give anchors: a national list's qualified CA and QWAC services do not, whatever their status", async () => {
    const root = await makeRoot('National');
    const [paa, pid, pid602, qc, qwac, tsa] = await Promise.all(
      ['PAA', 'PID', 'PID 602', 'QC', 'QWAC', 'TSA'].map((name) => makeSigner(name, root)),
    );
    const national = readTrustedList(
      signedTrustedList({
        ...shape,
        type: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric',
        services: [
          { certificate: qc!.der, type: SERVICE_TYPES.qualifiedCertificates },
          { certificate: root.der, type: SERVICE_TYPES.qualifiedCertificates },
          { certificate: qwac!.der, type: SERVICE_TYPES.qwac },
          { certificate: tsa!.der, type: 'http://uri.etsi.org/TrstSvc/Svctype/TSA/QTST' },
          { certificate: pid!.der, type: SERVICE_TYPES.pid },
          { certificate: pid602!.der, type: 'http://uri.etsi.org/19602/SvcType/PID/Issuance' },
          { certificate: paa!.der, type: SERVICE_TYPES.ageAttestation },
        ],
      }),
      configured,
      new Date(),
    );
    expect(national.certificates).to.deep.equal([pid!.der, pid602!.der, paa!.der]);
    expect(national).to.include({
      otherServices: 4,
      inactiveServices: 0,
      type: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric',
    });
    // A generic attestation provider (EAA, qualified or not) is not an age-attestation provider either.
    const eaa = readTrustedList(
      signedTrustedList({
        ...shape,
        services: [{ certificate: paa!.der, type: 'http://uri.etsi.org/TrstSvc/Svctype/EAA/Q' }],
      }),
      configured,
      new Date(),
    );
    expect(eaa.certificates).to.deep.equal([]);
  });

  describe("the European Commission's AV test trusted list (fixtures/, as published)", () => {
    const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
    const ecList = fixture('ec-av-test-trusted-list.xml');
    const lotlSigner = [new X509Certificate(fixture('ec-test-lotl-signer-1.pem'))];
    const beforeNextUpdate = new Date('2025-10-01T00:00:00Z');

    it("verifies with the TEST LOTLSO certificate (XAdES, enveloped) and yields its recognized services, the EC's own DS among them, not the deprecated one", () => {
      const list = readTrustedList(ecList, lotlSigner, beforeNextUpdate);
      const subjects = list.certificates.map((der) => /CN=[^\n]+/.exec(new X509Certificate(der).subject)?.[0]);
      expect(subjects).to.deep.equal([
        'CN=Age Verification DS - 001',
        'CN=BE PAAP 1 PAAS 2',
        'CN=LU PAAP 1 PAAS 1',
        'CN=LU PAAP 1 PAAS 2',
      ]);
      expect(list.certificates[0]).to.deep.equal(new X509Certificate(fixture('ec-av-ds-001.pem')).raw);
      expect(list).to.include({
        inactiveServices: 1,
        otherServices: 0,
        type: 'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/TSLType/AVTL',
      });
      expect(list.issued.toISOString()).to.equal('2025-07-01T01:00:00.000Z');
    });

    it('is refused when signed by anyone else, or with a service renamed after signing', async () => {
      const other = await makeCertificate({ subject: 'CN=LOTL signer 1, C=BE' });
      expect(refusal(ecList, [new X509Certificate(other.der)], beforeNextUpdate)).to.match(
        /does not verify with the configured signer/,
      );
      expect(
        refusal(
          ecList.replace('>Age Verification Testing Issuer<', '>Age Verification Testing Issuer 2<'),
          lotlSigner,
          beforeNextUpdate,
        ),
      ).to.match(/does not verify/);
    });
  });
});
