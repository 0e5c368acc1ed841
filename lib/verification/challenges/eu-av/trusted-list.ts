import { createHash, verify, type X509Certificate } from 'node:crypto';
import { SignedXml, type HashAlgorithm, type SignatureAlgorithm } from 'xml-crypto';
import { parseXml, type XmlElement } from './xml.js';

const TSL = 'http://uri.etsi.org/02231/v2#';
const XMLDSIG = 'http://www.w3.org/2000/09/xmldsig#';

const ETSI_STATUS = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/';

/**
 * The current statuses of a service in good standing, whose certificates are anchors: ETSI TS 119 612 v2's "granted"
 * and "recognised at national level" and the v1 statuses of the same meaning (national and EUDI lists), and the
 * Commission's AV Trusted List's own "recognized". Withdrawn, ceased, revoked or deprecated services are left out.
 */
const GOOD_STANDING = new Set([
  ...[
    'granted',
    'recognisedatnationallevel',
    'undersupervision',
    'supervisionincessation',
    'accredited',
    'setbynationallaw',
  ].map((status) => `${ETSI_STATUS}${status}`),
  'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/Svcstatus/recognized',
]);

/**
 * The service types whose certificates may vouch for an age attestation: the Commission's Proof of Age Attestation
 * Provider (the AV Trusted List's), and the PID provider (the EUDI lists', ETSI TS 119 612 and TS 119 602 forms). A
 * national list's qualified CAs (CA/QC: e-signature, e-seal and website certificates), time-stamping or any other
 * service are not anchors for an attestation, whatever their status.
 */
export const ANCHOR_SERVICE_TYPES: ReadonlySet<string> = new Set([
  'http://ec.europa.eu/tools/lotl/av/TrstSvc/Svctype/PAA',
  'http://uri.etsi.org/Svc/Svctype/Provider/PID',
  'http://uri.etsi.org/19602/SvcType/PID/Issuance',
]);

export class TrustedListError extends Error {
  override name = 'TrustedListError';
}

/** A genuine list, but past its NextUpdate (ISO) and the grace: trusting by it stops eu_av. */
export class StaleListError extends TrustedListError {
  constructor(readonly nextUpdate: string) {
    super(`the trusted list is past its next update (${nextUpdate}) and the grace`);
  }
}

/** What a verified list yields. */
export interface TrustedList {
  /** the service digital identities (DER certificates) of the services whose status is active */
  certificates: Buffer[];
  /** services left out for their status */
  inactiveServices: number;
  /** services left out for their type: they issue neither age attestations nor PID */
  otherServices: number;
  /** the list's TSLType, for the log and /readyz */
  type: string;
  /** TSLSequenceNumber: which issue of the list this is (what an auditor matches against the list's publisher) */
  sequenceNumber?: number;
  issued: Date;
  nextUpdate?: Date;
}

/** XMLDSig's signature algorithms we accept, each bound to its key type: RSA PKCS#1 v1.5 and ECDSA (raw r||s), SHA-2 only. */
const SIGNATURE_ALGORITHMS: Record<string, { hash: string; keyType: 'rsa' | 'ec' }> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': { hash: 'sha256', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': { hash: 'sha384', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': { hash: 'sha512', keyType: 'rsa' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256': { hash: 'sha256', keyType: 'ec' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384': { hash: 'sha384', keyType: 'ec' },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512': { hash: 'sha512', keyType: 'ec' },
};

/** The reference digests we accept: SHA-2 only (SHA-1 is not a digest a trusted list may rest on). */
const HASH_ALGORITHMS: Record<string, new () => HashAlgorithm> = Object.fromEntries(
  (
    [
      ['http://www.w3.org/2001/04/xmlenc#sha256', 'sha256'],
      ['http://www.w3.org/2001/04/xmldsig-more#sha384', 'sha384'],
      ['http://www.w3.org/2001/04/xmlenc#sha512', 'sha512'],
    ] as const
  ).map(([uri, hash]) => [
    uri,
    class {
      getHash = (xml: string): string => createHash(hash).update(xml, 'utf8').digest('base64');
      getAlgorithmName = () => uri;
    },
  ]),
);

/** One algorithm as xml-crypto calls it, verifying with node:crypto against the configured certificate's key only. */
function algorithm(uri: string, signer: X509Certificate): new () => SignatureAlgorithm {
  const { hash, keyType } = SIGNATURE_ALGORITHMS[uri]!;
  const verifySignature = (material: string, _key: unknown, signatureValue: string): boolean =>
    signer.publicKey.asymmetricKeyType === keyType &&
    verify(
      hash,
      Buffer.from(material),
      keyType === 'ec' ? { key: signer.publicKey, dsaEncoding: 'ieee-p1363' } : signer.publicKey,
      Buffer.from(signatureValue, 'base64'),
    );
  return class {
    getSignature(): never {
      throw new TrustedListError('this verifier does not sign');
    }
    verifySignature = verifySignature;
    getAlgorithmName = () => uri;
  } as unknown as new () => SignatureAlgorithm;
}

function parse(xml: string): XmlElement {
  const root = parseXml(xml);
  if (!root) throw new TrustedListError('the trusted list is not well-formed XML');
  return root;
}

/** The direct children of `parent` with this namespace and local name. */
const childrenNamed = (parent: XmlElement, name: string, namespace = TSL): XmlElement[] =>
  Array.from(parent.childNodes).filter(
    (node) => node.nodeType === 1 && node.localName === name && node.namespaceURI === namespace,
  );

/** The element at the end of a path of direct children, or undefined. */
const pathOf = (from: XmlElement, ...names: string[]): XmlElement | undefined =>
  names.reduce<XmlElement | undefined>(
    (element, name) => (element ? childrenNamed(element, name)[0] : undefined),
    from,
  );

const textOf = (element: XmlElement | undefined): string => element?.textContent?.trim() ?? '';

/**
 * The signed content of the list: the enveloped XMLDSig signature (one ds:Signature, a child of the root) must verify
 * with one of the configured certificates (its KeyInfo is not trusted), and one of its references must cover the
 * whole list. What is returned is the canonical XML that signature covers, so nothing outside it is ever read.
 */
function signedContent(xml: string, signers: readonly X509Certificate[]): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) throw new TrustedListError('the trusted list carries a document type declaration');
  const root = parse(xml);
  if (root.localName !== 'TrustServiceStatusList' || root.namespaceURI !== TSL)
    throw new TrustedListError('not an ETSI TS 119 612 trusted list');
  const signatures = root.getElementsByTagNameNS(XMLDSIG, 'Signature');
  if (signatures.length !== 1 || signatures[0]!.parentNode !== root)
    throw new TrustedListError('the trusted list does not carry exactly one enveloped signature');
  const rootId = root.getAttribute('Id');
  const wholeList = new Set(['', ...(rootId ? [`#${rootId}`] : [])]);
  for (const signer of signers) {
    const signed = new SignedXml({ publicCert: signer.toString(), getCertFromKeyInfo: () => null });
    signed.SignatureAlgorithms = Object.fromEntries(
      Object.keys(SIGNATURE_ALGORITHMS).map((uri) => [uri, algorithm(uri, signer)]),
    );
    signed.HashAlgorithms = HASH_ALGORITHMS;
    signed.loadSignature(signatures[0]!);
    let valid = false;
    try {
      valid = signed.checkSignature(xml);
    } catch {
      valid = false;
    }
    if (!valid) continue;
    const covering = signed
      .getReferences()
      .find((reference) => wholeList.has(reference.uri ?? '') && reference.signedReference);
    if (!covering?.signedReference)
      throw new TrustedListError("the trusted list's signature does not cover the whole list");
    return parse(covering.signedReference);
  }
  throw new TrustedListError("the trusted list's signature does not verify with the configured signer certificate");
}

/** Whether a list whose NextUpdate is `nextUpdate` may no longer be used at `now`, `graceMs` after it. */
export const pastGrace = (nextUpdate: Date, graceMs: number, now: Date): boolean =>
  now.getTime() > nextUpdate.getTime() + graceMs;

const dateOf = (text: string): Date | undefined => {
  const date = new Date(text);
  return text && !Number.isNaN(date.getTime()) ? date : undefined;
};

/** TSLSequenceNumber when it is one (a positive integer); a list without one is still read. */
const sequenceNumberOf = (text: string): { sequenceNumber?: number } =>
  /^[1-9][0-9]{0,14}$/.test(text) ? { sequenceNumber: Number(text) } : {};

/**
 * Verifies an ETSI TS 119 612 trusted list and reads its active services' certificates. Throws TrustedListError, among
 * others for a list more than `graceMs` past its NextUpdate (within the grace it is still the newest there is).
 */
export function readTrustedList(xml: string, signers: readonly X509Certificate[], now: Date, graceMs = 0): TrustedList {
  const list = signedContent(xml, signers);
  const scheme = pathOf(list, 'SchemeInformation');
  const issued = dateOf(textOf(scheme && pathOf(scheme, 'ListIssueDateTime')));
  if (!scheme || !issued) throw new TrustedListError('the trusted list has no issue date');
  const nextUpdate = dateOf(textOf(pathOf(scheme, 'NextUpdate', 'dateTime')));
  if (nextUpdate && pastGrace(nextUpdate, graceMs, now)) throw new StaleListError(nextUpdate.toISOString());
  const certificates: Buffer[] = [];
  let inactiveServices = 0;
  let otherServices = 0;
  const providers = childrenNamed(pathOf(list, 'TrustServiceProviderList') ?? list, 'TrustServiceProvider');
  for (const service of providers.flatMap((provider) =>
    childrenNamed(pathOf(provider, 'TSPServices') ?? provider, 'TSPService'),
  )) {
    const information = pathOf(service, 'ServiceInformation');
    if (!information) continue;
    if (!ANCHOR_SERVICE_TYPES.has(textOf(pathOf(information, 'ServiceTypeIdentifier')))) {
      otherServices += 1;
      continue;
    }
    if (!GOOD_STANDING.has(textOf(pathOf(information, 'ServiceStatus')))) {
      inactiveServices += 1;
      continue;
    }
    for (const identity of childrenNamed(information, 'ServiceDigitalIdentity')) {
      for (const id of childrenNamed(identity, 'DigitalId')) {
        for (const certificate of childrenNamed(id, 'X509Certificate'))
          certificates.push(Buffer.from(textOf(certificate).replace(/\s+/g, ''), 'base64'));
      }
    }
  }
  return {
    certificates,
    inactiveServices,
    otherServices,
    type: textOf(pathOf(scheme, 'TSLType')),
    ...sequenceNumberOf(textOf(pathOf(scheme, 'TSLSequenceNumber'))),
    issued,
    ...(nextUpdate ? { nextUpdate } : {}),
  };
}
