import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { redirectTranscript } from '../../../../lib/verification/challenges/eu-av/transcript.js';
import { trustAnchors, type TrustAnchors } from '../../../../lib/verification/challenges/eu-av/trust-anchors.js';
import { judgePresentation, type PresentationVerdict } from '../../../../lib/verification/challenges/eu-av/verify.js';
import {
  EUDI_DS_EKU,
  issueByHand,
  makeCertificate,
  makeIntermediate,
  makeReferenceIaca,
  makeReferenceSigner,
  makeRoot,
  makeSigner,
  presentByHand,
  TLS_SERVER_EKU,
  MDOC_DS_EKU,
  type Issued,
} from './hand-made.js';

const DAY = 24 * 60 * 60 * 1000;
const audience = {
  clientId: 'redirect_uri:https://age.example/v1/oauth2/eu-av/response',
  responseUri: 'https://age.example/v1/oauth2/eu-av/response',
  nonce: 'n-0123456789',
};

/**
 * The issuer signature's certificates, judged on presentations made by hand (hand-made.ts), apart from the libraries
 * the verifier uses: the key that signs must be the document signer's, and x5chain must be that signer's one path.
 */
describe('eu_av: the document signer and its path to a trusted certificate', function () {
  this.timeout(120_000);
  let root: Issued;
  let signer: Issued;
  let anchors: TrustAnchors;

  before(async () => {
    root = await makeRoot('Genuine');
    signer = await makeSigner('Genuine', root);
    anchors = trustAnchors([root.der]);
  });

  /** A presentation of age_over_18 true signed with `key`, carrying `x5chain`, judged against `trusted`. */
  const judge = (key: Issued, x5chain: Issued[], trusted = anchors, now = new Date()): Promise<PresentationVerdict> => {
    const attestation = issueByHand({
      signingKey: key.keys.privateKey,
      x5chain: x5chain.map((certificate) => certificate.der),
      elements: { age_over_18: true },
    });
    return judgePresentation(presentByHand(attestation, audience), trusted, {
      transcript: redirectTranscript(audience),
      threshold: 18,
      now,
    });
  };
  /** Refused, and why for the visitor: an attestation we cannot trust unless said otherwise. */
  const refused = (verdict: PresentationVerdict, problem: RegExp, as = 'untrusted'): void => {
    expect(verdict.verdict).to.equal(as);
    expect(verdict).to.have.property('problem').that.matches(problem);
  };

  it('a genuine presentation passes: the signer alone, the signer with its root, the signer under an intermediate', async () => {
    expect(await judge(signer, [signer])).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
    expect(await judge(signer, [signer, root])).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
    const twoLevelRoot = await makeRoot('Two-level root', { ca: 1 });
    const regional = await makeIntermediate('Regional', twoLevelRoot);
    const regionalSigner = await makeSigner('Regional', regional);
    expect(await judge(regionalSigner, [regionalSigner, regional], trustAnchors([twoLevelRoot.der]))).to.deep.equal({
      verdict: 'over',
      doctype: 'eu.europa.ec.av.1',
    });
  });

  it("the forgery: a self-signed certificate of the forger's own, the issuer's genuine signer certificate appended, is refused", async () => {
    const forger = await makeSigner('Forger', undefined);
    refused(await judge(forger, [forger, signer]), /certificate 1 did not issue certificate 0/);
    refused(await judge(forger, [forger, signer, root]), /certificate 1 did not issue certificate 0/);
    // The forger's key with the genuine certificate first: the signature is not the signer's.
    refused(await judge(forger, [signer]), /issuer signature does not verify/);
    refused(await judge(forger, [signer, forger]), /certificate 1 did not issue certificate 0/);
  });

  it("a forger's CA carrying the trusted root's very name does not stand in for it", async () => {
    const lookalike = await makeRoot('Genuine');
    expect(lookalike.certificate.subject).to.equal(root.certificate.subject);
    const forged = await makeSigner('Genuine', lookalike);
    refused(await judge(forged, [forged]), /no path to a trusted certificate/);
    refused(await judge(forged, [forged, lookalike]), /no path to a trusted certificate/);
  });

  it('a CA as signer is refused, whether or not its key usage also allows signing certificates', async () => {
    const { BasicConstraintsExtension, KeyUsageFlags } = await import('@peculiar/x509');
    const caSigner = await makeSigner('CA', root, { ca: true });
    expect(caSigner.certificate.getExtension(BasicConstraintsExtension)?.ca).to.equal(true);
    refused(await judge(caSigner, [caSigner]), /is a CA/);
    const fullCa = await makeSigner('Full CA', root, {
      ca: true,
      keyUsage: KeyUsageFlags.digitalSignature | KeyUsageFlags.keyCertSign,
    });
    expect(new X509Certificate(fullCa.der).ca).to.equal(true);
    refused(await judge(fullCa, [fullCa]), /is a CA/);
  });

  it('a signer without the mdoc document-signer extended key usage is refused, as is one for TLS servers only, or for both', async () => {
    const noUsage = await makeSigner('No EKU', root, { eku: undefined });
    refused(await judge(noUsage, [noUsage]), /lacks the mdoc document-signer extended key usage/);
    const tls = await makeSigner('TLS', root, { eku: [TLS_SERVER_EKU] });
    refused(await judge(tls, [tls]), /lacks the mdoc document-signer extended key usage/);
    const both = await makeSigner('Both', root, { eku: [MDOC_DS_EKU, TLS_SERVER_EKU] });
    refused(await judge(both, [both]), /besides the mdoc document signer/);
  });

  describe("the EU reference issuers' profile: DS extended key usage 1.3.130.2.0.0.1.2 under an IACA marked 1.3.130.2.0.0.1.7", () => {
    it('an AV attestation and a PID signed by such a DS pass, under their IACA and as an end-entity anchor', async () => {
      const { readExtensions } =
        await import('../../../../lib/verification/challenges/eu-av/certificate-extensions.js');
      const pid = 'eu.europa.ec.eudi.pid.1';
      for (const ekuCritical of [false, true]) {
        const iaca = await makeReferenceIaca('Age Verification', ekuCritical);
        const ds = await makeReferenceSigner('Age Verification', iaca);
        // The profile as the EC's own DS carries it (fixtures/ec-av-ds-001.pem), read apart from the library that made it.
        expect(readExtensions(ds.der)).to.deep.include({
          ca: false,
          extendedKeyUsage: [EUDI_DS_EKU],
          critical: ['2.5.29.15', '2.5.29.37'],
        });
        expect(await judge(ds, [ds], trustAnchors([iaca.der]))).to.deep.equal({
          verdict: 'over',
          doctype: 'eu.europa.ec.av.1',
        });
        expect(await judge(ds, [ds, iaca], trustAnchors([iaca.der]))).to.deep.equal({
          verdict: 'over',
          doctype: 'eu.europa.ec.av.1',
        });
        expect(await judge(ds, [ds], trustAnchors([ds.der]))).to.deep.equal({
          verdict: 'over',
          doctype: 'eu.europa.ec.av.1',
        });
        const presentation = presentByHand(
          issueByHand({
            signingKey: ds.keys.privateKey,
            x5chain: [ds.der],
            elements: { age_over_18: true },
            docType: pid,
          }),
          audience,
        );
        expect(
          await judgePresentation(presentation, trustAnchors([iaca.der]), {
            transcript: redirectTranscript(audience),
            threshold: 18,
            now: new Date(),
            doctypes: [pid],
          }),
        ).to.deep.equal({ verdict: 'over', doctype: pid });
      }
    });

    it('a DS carrying both document-signer usages passes; nothing looser does: TLS beside it, a CA, no digitalSignature, the IACA usage alone', async () => {
      const { KeyUsageFlags } = await import('@peculiar/x509');
      const iaca = await makeReferenceIaca('Strict');
      const trusted = trustAnchors([iaca.der]);
      const both = await makeReferenceSigner('Both', iaca, { eku: [MDOC_DS_EKU, EUDI_DS_EKU] });
      expect(await judge(both, [both], trusted)).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
      const tls = await makeReferenceSigner('TLS too', iaca, { eku: [EUDI_DS_EKU, TLS_SERVER_EKU] });
      refused(await judge(tls, [tls], trusted), /besides the mdoc document signer/);
      refused(await judge(tls, [tls], trustAnchors([tls.der])), /besides the mdoc document signer/);
      const tlsOnly = await makeReferenceSigner('TLS only', iaca, { eku: [TLS_SERVER_EKU] });
      refused(await judge(tlsOnly, [tlsOnly], trusted), /lacks the mdoc document-signer extended key usage/);
      const ca = await makeReferenceSigner('CA', iaca, { ca: true });
      refused(await judge(ca, [ca], trusted), /is a CA/);
      const noSignature = await makeReferenceSigner('No signature', iaca, { keyUsage: KeyUsageFlags.keyAgreement });
      refused(await judge(noSignature, [noSignature], trusted), /key usage is not digitalSignature/);
      refused(
        await judge(noSignature, [noSignature], trustAnchors([noSignature.der])),
        /key usage is not digitalSignature/,
      );
      const iacaUsage = await makeReferenceSigner('IACA usage', iaca, { eku: ['1.3.130.2.0.0.1.7'] });
      refused(await judge(iacaUsage, [iacaUsage], trusted), /lacks the mdoc document-signer extended key usage/);
    });
  });

  it('a signer whose key usage is not digitalSignature is refused', async () => {
    const { KeyUsageFlags } = await import('@peculiar/x509');
    const wrongUsage = await makeSigner('Key agreement', root, { keyUsage: KeyUsageFlags.keyAgreement });
    refused(await judge(wrongUsage, [wrongUsage]), /key usage is not digitalSignature/);
  });

  it('a path through an intermediate the operator does not trust is refused', async () => {
    const elsewhere = await makeRoot('Elsewhere', { ca: 1 });
    const intermediate = await makeIntermediate('Elsewhere', elsewhere);
    const underIt = await makeSigner('Elsewhere', intermediate);
    refused(await judge(underIt, [underIt, intermediate]), /no path to a trusted certificate/);
    refused(await judge(underIt, [underIt, intermediate, elsewhere]), /no path to a trusted certificate/);
  });

  it("an intermediate that is not a CA, or beyond its root's path length, does not issue", async () => {
    const notCa = await makeCertificate({ subject: 'CN=Not a CA, C=EU', issuer: root });
    const underNotCa = await makeSigner('Under a non-CA', notCa);
    refused(await judge(underNotCa, [underNotCa, notCa]), /certificate 1 did not issue certificate 0/);
    // The genuine root allows no intermediate (path length 0).
    const intermediate = await makeIntermediate('Too deep', root);
    const tooDeep = await makeSigner('Too deep', intermediate);
    refused(await judge(tooDeep, [tooDeep, intermediate]), /no path to a trusted certificate/);
  });

  it('an expired signer, a signer not yet valid and a not-yet-valid intermediate are refused', async () => {
    const expired = await makeSigner('Expired', root, {
      notBefore: new Date(Date.now() - 30 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    refused(await judge(expired, [expired]), /signer certificate is not valid now/, 'expired');
    const early = await makeSigner('Early', root, { notBefore: new Date(Date.now() + DAY) });
    refused(await judge(early, [early]), /signer certificate is not valid now/);
    const twoLevelRoot = await makeRoot('Two-level', { ca: 1 });
    const notYet = await makeIntermediate('Not yet', twoLevelRoot, { notBefore: new Date(Date.now() + DAY) });
    const underNotYet = await makeSigner('Not yet', notYet);
    refused(
      await judge(underNotYet, [underNotYet, notYet], trustAnchors([twoLevelRoot.der])),
      /a certificate of the signer's path is not valid now/,
    );
    // The same path, judged at a time when every certificate is valid, passes: only the time refused it.
    expect(
      await judge(underNotYet, [underNotYet, notYet], trustAnchors([twoLevelRoot.der]), new Date(Date.now() + 2 * DAY)),
    ).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
  });

  it('an expired root refuses every signer under it', async () => {
    const old = await makeRoot('Old', {
      notBefore: new Date(Date.now() - 400 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const under = await makeSigner('Old', old, { notBefore: new Date(Date.now() - 2 * DAY) });
    refused(
      await judge(under, [under], trustAnchors([old.der])),
      /a certificate of the signer's path is not valid now/,
    );
  });

  it('an end-entity anchor matches only that very signer certificate, which must still be a document signer', async () => {
    const unlisted = await makeRoot('Unlisted');
    const listed = await makeSigner('Listed', unlisted);
    const onlyListed = trustAnchors([listed.der]);
    expect(onlyListed.signers).to.have.length(1);
    expect(await judge(listed, [listed], onlyListed)).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
    expect(await judge(listed, [listed, unlisted], onlyListed)).to.deep.equal({
      verdict: 'over',
      doctype: 'eu.europa.ec.av.1',
    });
    const sibling = await makeSigner('Listed', unlisted);
    refused(await judge(sibling, [sibling, unlisted], onlyListed), /no path to a trusted certificate/);
    const forger = await makeSigner('Forger', undefined);
    refused(await judge(forger, [forger, listed], onlyListed), /certificate 1 did not issue certificate 0/);
    const tls = await makeSigner('TLS', unlisted, { eku: [TLS_SERVER_EKU] });
    refused(await judge(tls, [tls], trustAnchors([tls.der])), /lacks the mdoc document-signer/);
  });

  it('accepts the document types the request accepts: the AV attestation by default, the PID when asked, and says which answered', async () => {
    const pid = 'eu.europa.ec.eudi.pid.1';
    const presentation = presentByHand(
      issueByHand({
        signingKey: signer.keys.privateKey,
        x5chain: [signer.der],
        elements: { age_over_18: true },
        docType: pid,
      }),
      audience,
    );
    const expectation = { transcript: redirectTranscript(audience), threshold: 18, now: new Date() };
    refused(
      await judgePresentation(presentation, anchors, expectation),
      /not a document type this request accepts/,
      'invalid',
    );
    expect(
      await judgePresentation(presentation, anchors, { ...expectation, doctypes: ['eu.europa.ec.av.1', pid] }),
    ).to.deep.equal({ verdict: 'over', doctype: pid });
  });

  it('a certificate that cannot be read, or with a critical extension this check does not read, is refused', async () => {
    const { Extension } = await import('@peculiar/x509');
    const unread = await makeSigner('Critical', root, {
      extra: [new Extension('1.3.6.1.4.1.99999.1', true, new Uint8Array([0x05, 0x00]))],
    });
    refused(await judge(unread, [unread]), /critical extension this check does not read/);
    const garbage = issueByHand({
      signingKey: signer.keys.privateKey,
      x5chain: [Buffer.from([0x30, 0x82, 0x01, 0x00, 0x01])],
      elements: { age_over_18: true },
    });
    refused(
      await judgePresentation(presentByHand(garbage, audience), anchors, {
        transcript: redirectTranscript(audience),
        threshold: 18,
        now: new Date(),
      }),
      /cannot be read/,
    );
  });

  it('x5chain with a repeated certificate, or more certificates than a path holds, is refused', async () => {
    refused(await judge(signer, [signer, root, root]), /repeats a certificate/);
    refused(await judge(signer, [signer, root, root, root, root]), /holds 5 certificates/);
  });

  it('a deviceAuth that is not one device signature is refused by our own check, with the reason: empty, a deviceMac, both, not a COSE_Sign1', async () => {
    const attestation = issueByHand({
      signingKey: signer.keys.privateKey,
      x5chain: [signer.der],
      elements: { age_over_18: true },
    });
    const judgeWith = (deviceAuth: Map<string, unknown>): Promise<PresentationVerdict> =>
      judgePresentation(presentByHand(attestation, audience, deviceAuth), anchors, {
        transcript: redirectTranscript(audience),
        threshold: 18,
        now: new Date(),
      });
    const mac = [Buffer.alloc(0), new Map(), null, Buffer.alloc(32)];
    refused(
      await judgeWith(new Map()),
      /deviceAuth holds neither exactly one deviceSignature nor a deviceMac/,
      'invalid',
    );
    refused(
      await judgeWith(new Map([['deviceMac', mac]])),
      /deviceAuth is a deviceMac: only a device signature is accepted/,
      'invalid',
    );
    refused(
      await judgeWith(
        new Map<string, unknown>([
          ['deviceMac', mac],
          ['deviceSignature', mac],
        ]),
      ),
      /neither exactly one deviceSignature/,
      'invalid',
    );
    refused(
      await judgeWith(new Map([['deviceSignature', 'signed']])),
      /deviceSignature is not a COSE_Sign1/,
      'invalid',
    );
  });
});
