import { createHash, createHmac, KeyObject, sign } from 'node:crypto';
import type { Issued } from './hand-made.js';

/**
 * An ETSI TS 119 612 trusted list signed by hand with node:crypto, apart from the verifier's XML libraries: the list is
 * written already in exclusive canonical form (default namespaces, sorted attributes, start and end tags, the
 * signature its root's last child with nothing around it), so its digest and the SignedInfo's signature are taken
 * over our own text; the verifier canonicalizes the document itself and must arrive at the same bytes.
 */

const TSL = 'http://uri.etsi.org/02231/v2#';
const STATUS = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/';

export interface ListedService {
  certificate: Buffer;
  /** an ETSI status by its last word, or any status URI */
  status?: string;
  /** the ServiceTypeIdentifier: the AV Trusted List's age-attestation provider unless said */
  type?: string;
}

/** The service types the EU's lists use (docs/eu-av.md, "Whom to trust"). */
export const SERVICE_TYPES = {
  ageAttestation: 'http://ec.europa.eu/tools/lotl/av/TrstSvc/Svctype/PAA',
  pid: 'http://uri.etsi.org/Svc/Svctype/Provider/PID',
  qualifiedCertificates: 'http://uri.etsi.org/TrstSvc/Svctype/CA/QC',
  qwac: 'http://uri.etsi.org/TrstSvc/Svctype/CA/QC/QWAC',
} as const;

export interface ListShape {
  signer: Issued;
  services: ListedService[];
  issued: Date;
  nextUpdate?: Date;
  /** the SignatureMethod; the key signs with ECDSA unless this names HMAC (an attacker keying it with the public certificate) */
  signatureMethod?: 'ecdsa-sha256' | 'hmac-sha1';
  /** the TSLType: the AV Trusted List's unless said */
  type?: string;
  /** the TSLSequenceNumber: 1 unless said */
  sequenceNumber?: number;
  /** replaces the list's content after signing, as a tamperer would */
  tamper?: (list: string) => string;
}

const service = (
  { certificate, status = 'granted', type = SERVICE_TYPES.ageAttestation }: ListedService,
  index: number,
): string =>
  `<TSPService><ServiceInformation><ServiceTypeIdentifier>${type}</ServiceTypeIdentifier>` +
  `<ServiceName><Name xml:lang="en">Age attestation ${index}</Name></ServiceName>` +
  `<ServiceDigitalIdentity><DigitalId><X509Certificate>${certificate.toString('base64')}</X509Certificate></DigitalId></ServiceDigitalIdentity>` +
  `<ServiceStatus>${status.includes('://') ? status : `${STATUS}${status}`}</ServiceStatus><StatusStartingTime>2026-01-01T00:00:00Z</StatusStartingTime></ServiceInformation></TSPService>`;

const isoSeconds = (date: Date): string => `${date.toISOString().split('.')[0]}Z`;

/** The list without its signature, in exclusive canonical form; `signature` is inserted as the root's last child. */
const listText = (shape: ListShape, signature: string): string =>
  `<TrustServiceStatusList xmlns="${TSL}" Id="tsl" TSLTag="http://uri.etsi.org/19612/TSLTag">` +
  `<SchemeInformation><TSLVersionIdentifier>5</TSLVersionIdentifier><TSLSequenceNumber>${shape.sequenceNumber ?? 1}</TSLSequenceNumber>` +
  `<TSLType>${shape.type ?? 'http://ec.europa.eu/tools/lotl/av/TrstSvc/TrustedList/TSLType/AVTL'}</TSLType>` +
  `<ListIssueDateTime>${isoSeconds(shape.issued)}</ListIssueDateTime>` +
  (shape.nextUpdate ? `<NextUpdate><dateTime>${isoSeconds(shape.nextUpdate)}</dateTime></NextUpdate>` : '') +
  `</SchemeInformation>` +
  `<TrustServiceProviderList><TrustServiceProvider><TSPInformation><TSPName><Name xml:lang="en">Test attestation provider</Name></TSPName></TSPInformation>` +
  `<TSPServices>${shape.services.map(service).join('')}</TSPServices></TrustServiceProvider></TrustServiceProviderList>` +
  `${signature}</TrustServiceStatusList>`;

export function signedTrustedList(shape: ListShape): string {
  const method = shape.signatureMethod ?? 'ecdsa-sha256';
  const methodUri =
    method === 'hmac-sha1'
      ? 'http://www.w3.org/2000/09/xmldsig#hmac-sha1'
      : 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256';
  const digest = createHash('sha256').update(listText(shape, '')).digest('base64');
  const signedInfo =
    `<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#">` +
    `<CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${methodUri}"></SignatureMethod>` +
    `<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform>` +
    `<Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></Transform></Transforms>` +
    `<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>${digest}</DigestValue></Reference></SignedInfo>`;
  const value =
    method === 'hmac-sha1'
      ? createHmac('sha1', shape.signer.pem).update(signedInfo).digest('base64')
      : sign('sha256', Buffer.from(signedInfo), {
          key: KeyObject.from(shape.signer.keys.privateKey),
          dsaEncoding: 'ieee-p1363',
        }).toString('base64');
  const signature =
    `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#" Id="sig">${signedInfo}<SignatureValue>${value}</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>${shape.signer.der.toString('base64')}</X509Certificate></X509Data></KeyInfo></Signature>`;
  const list = `<?xml version="1.0" encoding="UTF-8"?>\n${listText(shape, signature)}`;
  return shape.tamper ? shape.tamper(list) : list;
}
