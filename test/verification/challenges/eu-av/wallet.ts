import { createHash, generateKeyPairSync, webcrypto, type JsonWebKey } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { DeviceResponse, Document, MDoc } from '@auth0/mdl';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { Decoder, Encoder, Tag } from 'cbor-x';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 24 * 60 * 60 * 1000;
export const AV_DOCTYPE = 'eu.europa.ec.av.1';
/** The person identification data of every EUDI wallet: its doctype is also the namespace of its age_over_NN elements. */
export const PID_DOCTYPE = 'eu.europa.ec.eudi.pid.1';

/** A test attestation provider: its root (the IACA certificate an operator would trust) and a document signer under it. */
export interface TestIssuer {
  rootPem: string;
  signerPem: string;
  signerKey: JsonWebKey;
}

export async function createTestIssuer(name = 'Test AV'): Promise<TestIssuer> {
  const now = Date.now();
  const rootKeys = await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify']);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name} Root, C=EU`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    keys: rootKeys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const signerKeys = await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify']);
  const signer = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${name} Signer, C=EU`,
    issuer: root.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 300 * DAY),
    signingAlgorithm: ES256,
    publicKey: signerKeys.publicKey,
    signingKey: rootKeys.privateKey,
    // The ISO/IEC 18013-5 document-signer profile: digitalSignature and the mdoc DS extended key usage.
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(['1.0.18013.5.1.2'], true),
    ],
  });
  return {
    rootPem: root.toString('pem'),
    signerPem: signer.toString('pem'),
    signerKey: (await webcrypto.subtle.exportKey('jwk', signerKeys.privateKey)) as JsonWebKey,
  };
}

/** What the wallet holds: the issuer-signed attestation and the device key bound into it. */
export interface Attestation {
  mdoc: Uint8Array;
  deviceKey: JsonWebKey;
  /** the document type, also the namespace of its elements; the AV attestation's when absent */
  doctype?: string;
}

export async function issueAttestation(
  issuer: TestIssuer,
  elements: Record<string, boolean>,
  validity: { validFrom?: Date; validUntil?: Date } = {},
  doctype = AV_DOCTYPE,
): Promise<Attestation> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signed = new Date(Date.now() - 60_000);
  const document = await new Document(doctype)
    .addIssuerNameSpace(doctype, elements)
    .useDigestAlgorithm('SHA-256')
    .addValidityInfo({
      signed,
      validFrom: validity.validFrom ?? signed,
      validUntil: validity.validUntil ?? new Date(Date.now() + 90 * DAY),
    })
    .addDeviceKeyInfo({ deviceKey: publicKey.export({ format: 'jwk' }) })
    .sign({ issuerPrivateKey: issuer.signerKey, issuerCertificate: issuer.signerPem, alg: 'ES256' });
  return { mdoc: new MDoc([document]).encode(), deviceKey: privateKey.export({ format: 'jwk' }), doctype };
}

/** The Authorization Request a wallet reads from the QR code or the same-device link (passed by value). */
export interface WalletRequest {
  clientId: string;
  responseUri: string;
  nonce: string;
  state: string;
  /** the one element the DCQL query asks for, e.g. age_over_18 */
  element: string;
  parameters: URLSearchParams;
}

export function readWalletRequest(walletUrl: string): WalletRequest {
  const parameters = new URL(walletUrl).searchParams;
  const query = JSON.parse(parameters.get('dcql_query') ?? '{}') as {
    credentials: Array<{ claims: Array<{ path: string[] }> }>;
  };
  return {
    clientId: parameters.get('client_id') ?? '',
    responseUri: parameters.get('response_uri') ?? '',
    nonce: parameters.get('nonce') ?? '',
    state: parameters.get('state') ?? '',
    element: query.credentials[0]?.claims[0]?.path[1] ?? '',
    parameters,
  };
}

const plain = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

/** Where the answer goes: posted to the response URI, or returned to a page at `origin` by the Digital Credentials API. */
export type Audience = { clientId: string; nonce: string; responseUri: string } | { origin: string; nonce: string };

/**
 * The wallet's own reading of OpenID4VP 1.0 B.2.6.1 (an answer posted to the response URI) and B.2.6.2 (an answer
 * through the browser's Digital Credentials API): written apart from the verifier's, so a mistake there shows.
 */
export function sessionTranscript(to: Audience): unknown[] {
  const [name, info] =
    'origin' in to
      ? ['OpenID4VPDCAPIHandover', [to.origin, to.nonce, null]]
      : ['OpenID4VPHandover', [to.clientId, to.nonce, null, to.responseUri]];
  return [null, null, [name, createHash('sha256').update(plain.encode(info)).digest()]];
}

const walletTranscript = (to: Audience): Buffer => plain.encode(new Tag(plain.encode(sessionTranscript(to)), 24));

/** A DeviceResponse disclosing `element`, device-signed over the transcript for this request (or, with `origin`, for the browser API). */
export function presentation(
  attestation: Attestation,
  request: Pick<WalletRequest, 'clientId' | 'nonce' | 'responseUri' | 'element'> & { origin?: string },
): Promise<Buffer> {
  return signedResponse(
    attestation,
    request.element,
    walletTranscript(request.origin ? { origin: request.origin, nonce: request.nonce } : request),
  );
}

/** A DeviceResponse disclosing `element`, device-signed over `transcript` (the tag-24 SessionTranscript bytes). */
async function signedResponse(attestation: Attestation, element: string, transcript: Uint8Array): Promise<Buffer> {
  const doctype = attestation.doctype ?? AV_DOCTYPE;
  const response = await DeviceResponse.from(attestation.mdoc)
    .usingPresentationDefinition({
      id: 'av',
      input_descriptors: [
        {
          id: doctype,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: [{ path: [`$['${doctype}']['${element}']`], intent_to_retain: false }],
          },
        },
      ],
    })
    .usingSessionTranscriptBytes(Buffer.from(transcript))
    .authenticateWithSignature(attestation.deviceKey, 'ES256')
    .sign();
  return Buffer.from(response.encode());
}

/**
 * The wallet side of ISO/IEC 18013-7 Annex C through the Digital Credentials API, written from the text: read the
 * DeviceRequest's element and the verifier's HPKE key from EncryptionInfo, device-sign over [null, null, ["dcapi",
 * SHA-256(CBOR([EncryptionInfo as sent, origin]))]], and seal the DeviceResponse to that key with @hpke/core (info:
 * the CBOR SessionTranscript, no additional data). `tweak` lets a test sign for another origin or seal to another key.
 */
export async function annexCAnswer(
  attestation: Attestation,
  data: { deviceRequest: string; encryptionInfo: string },
  origin: string,
  tweak: { signedOrigin?: string; sealTo?: Uint8Array } = {},
): Promise<string> {
  const read = new Decoder({ useRecords: false, mapsAsObjects: false });
  const [, parameters] = read.decode(Buffer.from(data.encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
  const coseKey = parameters.get('recipientPublicKey') as Map<number, Uint8Array>;
  const recipient = tweak.sealTo ?? Buffer.concat([Buffer.from([4]), coseKey.get(-2)!, coseKey.get(-3)!]);
  const deviceRequest = read.decode(Buffer.from(data.deviceRequest, 'base64url')) as Map<
    string,
    Array<Map<string, Tag>>
  >;
  const items = read.decode(deviceRequest.get('docRequests')![0]!.get('itemsRequest')!.value as Uint8Array) as Map<
    string,
    Map<string, Map<string, boolean>>
  >;
  const [element] = [...items.get('nameSpaces')!.values()][0]!.keys();

  const sessionTranscript = (signedOrigin: string): Uint8Array =>
    plain.encode([
      null,
      null,
      [
        'dcapi',
        createHash('sha256')
          .update(plain.encode([data.encryptionInfo, signedOrigin]))
          .digest(),
      ],
    ]);
  const signed = await signedResponse(
    attestation,
    element!,
    plain.encode(new Tag(sessionTranscript(tweak.signedOrigin ?? origin), 24)),
  );
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
  const sender = await suite.createSenderContext({
    recipientPublicKey: await suite.kem.importKey('raw', new Uint8Array(recipient).buffer, true),
    info: new Uint8Array(sessionTranscript(origin)).buffer,
  });
  const cipherText = Buffer.from(await sender.seal(new Uint8Array(signed).buffer));
  return Buffer.from(
    plain.encode([
      'dcapi',
      new Map<string, Uint8Array>([
        ['enc', Buffer.from(sender.enc)],
        ['cipherText', cipherText],
      ]),
    ]),
  ).toString('base64url');
}

/** The direct_post answer: vp_token keyed by the DCQL credential id, and the request's state. */
export function vpTokenOf(deviceResponse: Uint8Array, credentialId: string): string {
  return JSON.stringify({ [credentialId]: [Buffer.from(deviceResponse).toString('base64url')] });
}

export function postToVerifier(responseUri: string, fields: Record<string, string>): Promise<Response> {
  return fetch(responseUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Scans the request and answers it with this attestation, as a wallet would; `form` posts it as `vp_token[<id>]=`
 * fields (the iOS app's shape).
 */
export const answerRequest = (
  walletUrl: string,
  attestation: Attestation,
  tweak: Partial<WalletRequest> = {},
  shape: 'json' | 'form' = 'json',
): Promise<{ status: number; body: unknown; vpToken: string; cacheControl: string | null }> =>
  answerWith(walletUrl, (request) => presentation(attestation, request), tweak, {
    doctype: attestation.doctype ?? AV_DOCTYPE,
    shape,
  });

/**
 * Scans the request and posts the DeviceResponse `present` makes for it, keyed by the DCQL credential query whose
 * doctype is `doctype` (the AV attestation's unless said).
 */
export async function answerWith(
  walletUrl: string,
  present: (request: WalletRequest) => Promise<Uint8Array> | Uint8Array,
  tweak: Partial<WalletRequest> = {},
  { doctype = AV_DOCTYPE, shape = 'json' }: { doctype?: string; shape?: 'json' | 'form' } = {},
): Promise<{ status: number; body: unknown; vpToken: string; cacheControl: string | null }> {
  const request = { ...readWalletRequest(walletUrl), ...tweak };
  const query = JSON.parse(request.parameters.get('dcql_query') ?? '{}') as {
    credentials: Array<{ id: string; meta: { doctype_value: string } }>;
  };
  const id = query.credentials.find((credential) => credential.meta.doctype_value === doctype)?.id ?? '';
  const signed = Buffer.from(await present(request)).toString('base64url');
  const vpToken = JSON.stringify({ [id]: [signed] });
  const fields: Record<string, string> = shape === 'json' ? { vp_token: vpToken } : { [`vp_token[${id}]`]: signed };
  const answer = await postToVerifier(request.responseUri, { ...fields, state: request.state });
  return {
    status: answer.status,
    body: await answer.json(),
    vpToken,
    cacheControl: answer.headers.get('cache-control'),
  };
}
