import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { Encoder, Tag } from 'cbor-x';
import { sessionTranscript, type Audience } from './wallet.js';

/**
 * An attestation provider and a wallet built by hand, apart from every library the verifier uses: certificates with
 * @peculiar/x509, CBOR with cbor-x written field by field from ISO/IEC 18013-5, COSE_Sign1 signatures with node:crypto.
 * It can put any certificates in x5chain, so it can try what a forger would.
 */

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 24 * 60 * 60 * 1000;
export const MDOC_DS_EKU = '1.0.18013.5.1.2';
/** The EUDI PID rulebook's document-signer usage, and its IACA's: what the EU's reference issuers' certificates carry. */
export const EUDI_DS_EKU = '1.3.130.2.0.0.1.2';
export const EUDI_IACA_EKU = '1.3.130.2.0.0.1.7';
export const TLS_SERVER_EKU = '1.3.6.1.5.5.7.3.1';
export const AV_DOCTYPE = 'eu.europa.ec.av.1';

const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });
const embedded = (value: unknown): Tag => new Tag(cbor.encode(value), 24);

/** A certificate and its key pair. */
export interface Issued {
  certificate: x509.X509Certificate;
  der: Buffer;
  pem: string;
  keys: webcrypto.CryptoKeyPair;
}

export interface CertificateShape {
  subject: string;
  /** the issuing certificate; absent: self-signed */
  issuer?: Issued;
  /** basicConstraints cA (with this path length when a number) */
  ca?: boolean | number;
  keyUsage?: x509.KeyUsageFlags;
  /** extended key usages; absent: no extension */
  eku?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** any further extension */
  extra?: x509.Extension[];
  /** the subject's key pair (generated when absent) */
  keys?: webcrypto.CryptoKeyPair;
}

let serial = 1;

export async function makeCertificate(shape: CertificateShape): Promise<Issued> {
  const keys =
    shape.keys ?? ((await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair);
  const extensions: x509.Extension[] = [];
  if (shape.ca !== undefined && shape.ca !== false)
    extensions.push(
      new x509.BasicConstraintsExtension(true, typeof shape.ca === 'number' ? shape.ca : undefined, true),
    );
  if (shape.keyUsage !== undefined) extensions.push(new x509.KeyUsagesExtension(shape.keyUsage, true));
  if (shape.eku) extensions.push(new x509.ExtendedKeyUsageExtension(shape.eku, true));
  extensions.push(...(shape.extra ?? []));
  serial += 1;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString(16).padStart(4, '0'),
    subject: shape.subject,
    issuer: shape.issuer?.certificate.subject ?? shape.subject,
    notBefore: shape.notBefore ?? new Date(Date.now() - DAY),
    notAfter: shape.notAfter ?? new Date(Date.now() + 300 * DAY),
    signingAlgorithm: ES256,
    publicKey: keys.publicKey,
    signingKey: (shape.issuer?.keys ?? keys).privateKey,
    extensions,
  });
  return { certificate, der: Buffer.from(certificate.rawData), pem: certificate.toString('pem'), keys };
}

const CA_USAGE = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign;

export const makeRoot = (name: string, shape: Partial<CertificateShape> = {}): Promise<Issued> =>
  makeCertificate({ subject: `CN=${name} IACA, C=EU`, ca: 0, keyUsage: CA_USAGE, ...shape });

export const makeIntermediate = (
  name: string,
  issuer: Issued,
  shape: Partial<CertificateShape> = {},
): Promise<Issued> =>
  makeCertificate({ subject: `CN=${name} Intermediate, C=EU`, issuer, ca: 0, keyUsage: CA_USAGE, ...shape });

/** A document signer as ISO/IEC 18013-5 profiles it: digitalSignature, the mdoc DS extended key usage; `shape` bends it. */
export const makeSigner = (
  name: string,
  issuer: Issued | undefined,
  shape: Partial<CertificateShape> = {},
): Promise<Issued> =>
  makeCertificate({
    subject: `CN=${name} Document Signer, C=EU`,
    issuer,
    keyUsage: x509.KeyUsageFlags.digitalSignature,
    eku: [MDOC_DS_EKU],
    ...shape,
  });

/**
 * The extensions of the EU reference issuers' certificates (fixtures/ec-av-ds-001.pem, fixtures/ec-av-issuer-ca-01.pem,
 * the PID issuer CAs), copied one for one: key identifiers, CRL distribution point, issuer alternative name, and
 * the critical ones (the DS's key usage and extended key usage, the IACA's basic constraints and key usage).
 */
async function referenceExtensions(
  subjectKey: webcrypto.CryptoKey,
  issuer: Issued | undefined,
  crl: string,
): Promise<x509.Extension[]> {
  return [
    await x509.AuthorityKeyIdentifierExtension.create(issuer?.keys.publicKey ?? subjectKey),
    await x509.SubjectKeyIdentifierExtension.create(subjectKey),
    new x509.CRLDistributionPointsExtension([crl]),
    new x509.IssuerAlternativeNameExtension([{ type: 'url', value: 'https://commission.europa.eu/index_en' }]),
  ];
}

/** An IACA as the EU's reference issuers profile it: CA with path length 0, keyCertSign and cRLSign, EKU 1.3.130.2.0.0.1.7 (critical in the PID CAs, `ekuCritical`). */
export async function makeReferenceIaca(name: string, ekuCritical = false): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return makeCertificate({
    subject: `CN=${name} Issuer CA 01, O=${name} Reference Implementation, C=EU`,
    ca: 0,
    keyUsage: CA_USAGE,
    keys,
    extra: [
      new x509.ExtendedKeyUsageExtension([EUDI_IACA_EKU], ekuCritical),
      ...(await referenceExtensions(keys.publicKey, undefined, 'https://issuer.example/pki/CA_01.crl')),
    ],
  });
}

/** A document signer as the EU's reference issuers profile it ("Age Verification DS - 001"): digitalSignature and EKU 1.3.130.2.0.0.1.2, both critical; `shape` bends it. */
export async function makeReferenceSigner(
  name: string,
  issuer: Issued,
  shape: Partial<CertificateShape> = {},
): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return makeCertificate({
    subject: `CN=${name} DS - 001, O=${name} Reference Implementation, C=EU`,
    issuer,
    keyUsage: x509.KeyUsageFlags.digitalSignature,
    eku: [EUDI_DS_EKU],
    keys,
    extra: await referenceExtensions(keys.publicKey, issuer, 'https://issuer.example/pki/CA_01.crl'),
    ...shape,
  });
}

/** COSE_Sign1 with ES256 by node:crypto: [protected, unprotected, payload, signature] over Sig_structure "Signature1". */
function coseSign1(
  key: KeyObject,
  unprotected: Map<number, unknown>,
  payload: Buffer | null,
  detached?: Buffer,
): unknown[] {
  const protectedBytes = cbor.encode(new Map([[1, -7]]));
  const toBeSigned = cbor.encode(['Signature1', protectedBytes, Buffer.alloc(0), payload ?? detached]);
  const signature = sign('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' });
  return [protectedBytes, unprotected, payload, signature];
}

const tdate = (date: Date): Tag => new Tag(`${date.toISOString().split('.')[0]}Z`, 0);

/** What the hand-made wallet holds: the issuer-signed part and the device key bound into its MSO. */
export interface HandAttestation {
  docType: string;
  nameSpaces: Map<string, Tag[]>;
  issuerAuth: unknown[];
  deviceKey: KeyObject;
}

export interface Issuance {
  /** the key that signs the MSO (the signer certificate's, or a forger's) */
  signingKey: webcrypto.CryptoKey;
  /** the certificates of the x5chain header, in the order given */
  x5chain: Buffer[];
  elements: Record<string, boolean>;
  docType?: string;
  validFrom?: Date;
  validUntil?: Date;
  /** the MSO's status (IETF Token Status List): where this attestation's status is */
  status?: { idx: number; uri: string };
}

/** Signs an MSO over `elements` (ISO/IEC 18013-5 §9.1.2.4) with the given key and x5chain. */
export function issueByHand(issuance: Issuance): HandAttestation {
  const docType = issuance.docType ?? AV_DOCTYPE;
  const device = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = device.publicKey.export({ format: 'jwk' });
  const coseKey = new Map<number, unknown>([
    [1, 2],
    [-1, 1],
    [-2, Buffer.from(jwk.x!, 'base64url')],
    [-3, Buffer.from(jwk.y!, 'base64url')],
  ]);
  const items = Object.entries(issuance.elements).map(([identifier, value], digestID) =>
    embedded(
      new Map<string, unknown>([
        ['digestID', digestID],
        ['random', randomBytes(16)],
        ['elementIdentifier', identifier],
        ['elementValue', value],
      ]),
    ),
  );
  const digests = new Map(
    items.map((item, digestID) => [digestID, createHash('sha256').update(cbor.encode(item)).digest()]),
  );
  const signed = new Date(Date.now() - 60_000);
  const mso = new Map<string, unknown>([
    ['version', '1.0'],
    ['digestAlgorithm', 'SHA-256'],
    ['valueDigests', new Map([[docType, digests]])],
    ['deviceKeyInfo', new Map([['deviceKey', coseKey]])],
    ['docType', docType],
    [
      'validityInfo',
      new Map([
        ['signed', tdate(signed)],
        ['validFrom', tdate(issuance.validFrom ?? signed)],
        ['validUntil', tdate(issuance.validUntil ?? new Date(Date.now() + 90 * DAY))],
      ]),
    ],
    ...(issuance.status
      ? [
          [
            'status',
            new Map([
              [
                'status_list',
                new Map<string, unknown>([
                  ['idx', issuance.status.idx],
                  ['uri', issuance.status.uri],
                ]),
              ],
            ]),
          ] as [string, unknown],
        ]
      : []),
  ]);
  const x5chain = issuance.x5chain.length === 1 ? issuance.x5chain[0] : issuance.x5chain;
  const issuerAuth = coseSign1(
    KeyObject.from(issuance.signingKey),
    new Map([[33, x5chain]]),
    cbor.encode(embedded(mso)),
  );
  return { docType, nameSpaces: new Map([[docType, items]]), issuerAuth, deviceKey: device.privateKey };
}

/** The DeviceResponse (ISO/IEC 18013-5 §8.3.2.1.2.2) for this audience: everything issued, device-signed over the session transcript (or with the `deviceAuth` given). */
export function presentByHand(attestation: HandAttestation, to: Audience, deviceAuth?: Map<string, unknown>): Buffer {
  const deviceNameSpaces = embedded(new Map());
  const deviceAuthentication = cbor.encode(
    embedded(['DeviceAuthentication', sessionTranscript(to), attestation.docType, deviceNameSpaces]),
  );
  const deviceSignature = coseSign1(attestation.deviceKey, new Map(), null, deviceAuthentication);
  const document = new Map<string, unknown>([
    ['docType', attestation.docType],
    [
      'issuerSigned',
      new Map<string, unknown>([
        ['nameSpaces', attestation.nameSpaces],
        ['issuerAuth', attestation.issuerAuth],
      ]),
    ],
    [
      'deviceSigned',
      new Map<string, unknown>([
        ['nameSpaces', deviceNameSpaces],
        ['deviceAuth', deviceAuth ?? new Map([['deviceSignature', deviceSignature]])],
      ]),
    ],
  ]);
  return cbor.encode(
    new Map<string, unknown>([
      ['version', '1.0'],
      ['documents', [document]],
      ['status', 0],
    ]),
  );
}
