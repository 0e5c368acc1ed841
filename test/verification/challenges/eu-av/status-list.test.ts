import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { createLogger } from '../../../../lib/log.js';
import {
  createStatusLists,
  type UnreachableStatus,
} from '../../../../lib/verification/challenges/eu-av/status-list.js';
import { redirectTranscript } from '../../../../lib/verification/challenges/eu-av/transcript.js';
import { trustAnchors, type TrustAnchors } from '../../../../lib/verification/challenges/eu-av/trust-anchors.js';
import { judgePresentation, type PresentationVerdict } from '../../../../lib/verification/challenges/eu-av/verify.js';
import {
  issueByHand,
  makeReferenceIaca,
  makeReferenceSigner,
  makeSigner,
  presentByHand,
  type Issued,
} from './hand-made.js';
import { startListServer, type ListServer } from './list-server.js';
import { statusListToken, type StatusListShape } from './status-list-maker.js';

const audience = {
  clientId: 'redirect_uri:https://age.example/v1/oauth2/eu-av/response',
  responseUri: 'https://age.example/v1/oauth2/eu-av/response',
  nonce: 'n-0123456789',
};

/**
 * Revocation through the IETF Token Status List named in the MSO: the token served over https on loopback, built
 * apart from the verifier (status-list-maker.ts), signed under the same anchors as the attestation.
 */
describe("eu_av: the attestation's status list (revocation)", function () {
  this.timeout(120_000);
  let iaca: Issued;
  let ds: Issued;
  let anchors: TrustAnchors;
  let server: ListServer;
  let now: Date;
  let lines: string[];

  before(async () => {
    iaca = await makeReferenceIaca('Age Verification');
    ds = await makeReferenceSigner('Age Verification', iaca);
    anchors = trustAnchors([iaca.der]);
    server = await startListServer();
  });
  after(() => server.close());
  beforeEach(() => {
    now = new Date();
    lines = [];
  });

  const statusLists = (allowPrivate = true, timeoutMs = 2000) =>
    createStatusLists(
      { clock: { now: () => now }, log: createLogger('debug', (line) => lines.push(line)) },
      { fetch: { timeoutMs, allowPrivate, ca: [new X509Certificate(server.certificate).raw] } },
    );
  const shape = (overrides: Partial<StatusListShape> = {}): StatusListShape => ({
    signer: ds,
    uri: server.url,
    statuses: [0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
    exp: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  });

  /** An AV attestation whose status is at `idx` of the list at `uri`, presented and judged with the status lists. */
  const judge = (
    lists: ReturnType<typeof statusLists>,
    idx: number,
    unreachable: UnreachableStatus = 'refuse',
    uri = server.url,
  ): Promise<PresentationVerdict> => {
    const attestation = issueByHand({
      signingKey: ds.keys.privateKey,
      x5chain: [ds.der],
      elements: { age_over_18: true },
      status: { idx, uri },
    });
    return judgePresentation(presentByHand(attestation, audience), anchors, {
      transcript: redirectTranscript(audience),
      threshold: 18,
      now,
      statuses: { lists, unreachable },
    });
  };

  it('a valid status passes; a revoked one (1) or a suspended one (2 bits: 2) is refused as revoked', async () => {
    server.serve(await statusListToken(shape()));
    const lists = statusLists();
    expect(await judge(lists, 0)).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
    expect(await judge(lists, 1)).to.deep.equal({
      verdict: 'revoked',
      problem: 'the attestation is revoked or suspended in its status list',
    });
    expect(await judge(lists, 9)).to.have.property('verdict', 'revoked');
    server.serve(await statusListToken(shape({ uri: `${server.url}?two-bits`, bits: 2, statuses: [0, 2, 1, 0] })));
    expect(await judge(lists, 1, 'refuse', `${server.url}?two-bits`)).to.have.property('verdict', 'revoked');
    expect(await judge(lists, 3, 'refuse', `${server.url}?two-bits`)).to.have.property('verdict', 'over');
  });

  it('is fetched once and kept within its own lifetime (exp, ttl), then fetched again', async () => {
    server.serve(await statusListToken(shape({ ttl: 60 })));
    const lists = statusLists();
    const before = server.requests();
    expect(await judge(lists, 0)).to.have.property('verdict', 'over');
    expect(await judge(lists, 1)).to.have.property('verdict', 'revoked');
    expect(server.requests() - before).to.equal(1);
    // Past its ttl the list is read again: the attestation at index 0 has been revoked meanwhile.
    server.serve(await statusListToken(shape({ ttl: 60, statuses: [1] })));
    now = new Date(Date.now() + 61_000);
    expect(await judge(lists, 0)).to.have.property('verdict', 'revoked');
    expect(server.requests() - before).to.equal(2);
  });

  const unknowable: Array<[string, () => Promise<Buffer | number | null>, RegExp]> = [
    [
      'signed by a key the anchors do not vouch for',
      async () => statusListToken(shape({ signer: await makeSigner('Forger', undefined) })),
      /signer is not trusted/,
    ],
    [
      'for another address (sub)',
      async () => statusListToken(shape({ uri: 'https://elsewhere.example/list' })),
      /for another address/,
    ],
    ['expired', async () => statusListToken(shape({ exp: Math.floor(Date.now() / 1000) - 10 })), /has expired/],
    [
      'of another type',
      async () => statusListToken(shape({ typ: 'application/statuslist+jwt' })),
      /not of type application\/statuslist\+cwt/,
    ],
    ['not CBOR', async () => Buffer.from('<html>maintenance</html>'), /not CBOR|not a COSE_Sign1/],
    ['answered 503', async () => 503, /answered 503/],
    ['never answered', async () => null, /did not answer in time/],
  ];
  for (const [what, answer, problem] of unknowable) {
    it(`a status list ${what}: refused as untrusted by default, accepted when the operator says so; logged, never thrown`, async () => {
      server.serve(await answer());
      const refused = await judge(statusLists(true, 300), 0);
      expect(refused).to.include({ verdict: 'untrusted' });
      expect(refused).to.have.property('problem').that.matches(problem);
      expect(await judge(statusLists(true, 300), 0, 'accept')).to.deep.equal({
        verdict: 'over',
        doctype: 'eu.europa.ec.av.1',
      });
      expect(lines.filter((line) => line.includes('eu_av status list unavailable'))).to.have.length(2);
      expect(lines.join('\n')).to.not.include(server.url);
    });
  }

  it('never fetches from a private address unless the operator allows it', async () => {
    server.serve(await statusListToken(shape()));
    expect(await judge(statusLists(false), 0))
      .to.have.property('problem')
      .that.matches(/EPRIVATE/);
    expect(await judge(statusLists(false), 0, 'refuse', server.url.replace('127.0.0.1', 'localhost')))
      .to.have.property('problem')
      .that.matches(/EPRIVATE/);
  });

  it('an attestation naming no status list is not looked up; a malformed reference is refused', async () => {
    const lists = statusLists();
    const before = server.requests();
    const plain = issueByHand({ signingKey: ds.keys.privateKey, x5chain: [ds.der], elements: { age_over_18: true } });
    expect(
      await judgePresentation(presentByHand(plain, audience), anchors, {
        transcript: redirectTranscript(audience),
        threshold: 18,
        now,
        statuses: { lists, unreachable: 'refuse' },
      }),
    ).to.deep.equal({ verdict: 'over', doctype: 'eu.europa.ec.av.1' });
    expect(await judge(lists, 0, 'refuse', 'http://plain.example/list')).to.deep.equal({
      verdict: 'invalid',
      problem: "the MSO's status_list is not {idx, https uri}",
    });
    expect(server.requests()).to.equal(before);
  });
});
