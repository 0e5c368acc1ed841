import { randomToken } from '../../../security/hashing.js';
import type { AnnexCRequest } from './annex-c.js';

/** The EU age-verification attestation: ISO mdoc document type, which is also its only namespace. */
export const AV_DOCTYPE = 'eu.europa.ec.av.1';
/** Path of the fixed direct_post endpoint; `state` names the interaction and the request. */
export const RESPONSE_PATH = '/v1/oauth2/eu-av/response';

/**
 * The credentials a wallet may answer with, either one (DCQL credential_sets): the AV attestation, or the person
 * identification data every EUDI wallet holds, which carries the same age_over_NN elements in its own namespace.
 * `id` is the DCQL credential query id the wallet keys its vp_token by; `kind` is what the log records.
 */
export const ACCEPTED_CREDENTIALS = [
  { id: 'age_attestation', kind: 'av', doctype: AV_DOCTYPE, namespace: AV_DOCTYPE },
  { id: 'pid', kind: 'pid', doctype: 'eu.europa.ec.eudi.pid.1', namespace: 'eu.europa.ec.eudi.pid.1' },
] as const;

export type AcceptedCredential = (typeof ACCEPTED_CREDENTIALS)[number];

export const ageElement = (threshold: number): string => `age_over_${String(threshold).padStart(2, '0')}`;

/**
 * The two requests a page shows: the one behind the same-device links, whose pass counts only once this browser
 * brings back the response code, and the one in the QR code, answered from another device.
 */
export const CHANNELS = ['same_device', 'cross_device'] as const;
export type Channel = (typeof CHANNELS)[number];

/** One OpenID4VP request: its `state` (`<interaction uid>.<random>`) and `nonce`. */
export interface RequestIds {
  state: string;
  nonce: string;
}

/** What the start step remembers (sealed in the interaction's challenge state) to check the wallet's answer. */
export interface PendingPresentation {
  threshold: number;
  requests: Record<Channel, RequestIds>;
  /** the nonce of the browser's Digital Credentials API request over OpenID4VP */
  dcApiNonce: string;
  /** the key and EncryptionInfo of the browser's Digital Credentials API request under ISO/IEC 18013-7 Annex C */
  annexC: AnnexCRequest;
  /** set once by the response endpoint: the verdict, so a second response (a replay) is refused */
  answer?: 'over' | 'under' | 'untrusted' | 'expired' | 'revoked' | 'invalid' | 'declined';
  /** the request that was answered */
  answeredBy?: Channel;
  /** a same-device pass waits for this browser: SHA-256 (hex) of the one-time response code the wallet redirects with */
  responseCodeHash?: string;
  /** the response code was presented and the pass is being recorded: nothing else may count it again */
  counted?: true;
}

/**
 * The stored state as this version writes it, or undefined for another shape (a page opened before an upgrade that
 * changed it): the check then starts afresh instead of failing on a field it lacks.
 */
export function readPending(value: unknown): PendingPresentation | undefined {
  const pending = value as Partial<PendingPresentation> | null | undefined;
  return pending?.requests?.same_device && pending.requests.cross_device && pending.annexC
    ? (pending as PendingPresentation)
    : undefined;
}

/** The interaction a `state` names (its part before the dot); the random part is checked against the stored one. */
export function uidOfState(state: string): string | undefined {
  const dot = state.lastIndexOf('.');
  return dot > 0 ? state.slice(0, dot) : undefined;
}

/** Fresh requests for one page view (a reload replaces them, so an older QR code or link stops working). */
export function newPending(uid: string, threshold: number, annexC: AnnexCRequest): PendingPresentation {
  const request = (): RequestIds => ({ state: `${uid}.${randomToken(16)}`, nonce: randomToken(16) });
  return {
    threshold,
    requests: { same_device: request(), cross_device: request() },
    dcApiNonce: randomToken(16),
    annexC,
  };
}

/** Whether the answer may end the check now: a same-device pass waits until this browser presents the response code. */
export const answerCounts = (pending: PendingPresentation): boolean =>
  Boolean(pending.answer) && !pending.responseCodeHash && !pending.counted;

/** Our OpenID4VP identity: the `redirect_uri` client identifier prefix names the response URI. */
export function verifierIdentity(issuer: string): { clientId: string; responseUri: string } {
  const responseUri = `${issuer}${RESPONSE_PATH}`;
  return { clientId: `redirect_uri:${responseUri}`, responseUri };
}

/** The DCQL query: either accepted credential (an mdoc), disclosing only age_over_NN for this threshold, not retained. */
export const dcqlQuery = (threshold: number) => ({
  credentials: ACCEPTED_CREDENTIALS.map(({ id, doctype, namespace }) => ({
    id,
    format: 'mso_mdoc',
    meta: { doctype_value: doctype },
    claims: [{ path: [namespace, ageElement(threshold)], intent_to_retain: false }],
  })),
  credential_sets: [{ options: ACCEPTED_CREDENTIALS.map(({ id }) => [id]) }],
});

/** The mdoc format: the algorithm parameters are optional and left out, which keeps the QR code small. */
const CLIENT_METADATA = { vp_formats_supported: { mso_mdoc: {} } };

/** The Authorization Request parameters, passed by value (the AV profile's choice; the request is unsigned). */
export function requestParameters(issuer: string, threshold: number, ids: RequestIds): Record<string, string> {
  const { clientId, responseUri } = verifierIdentity(issuer);
  return {
    client_id: clientId,
    response_type: 'vp_token',
    response_mode: 'direct_post',
    response_uri: responseUri,
    nonce: ids.nonce,
    state: ids.state,
    dcql_query: JSON.stringify(dcqlQuery(threshold)),
    client_metadata: JSON.stringify(CLIENT_METADATA),
  };
}

/** The protocol of the request by OpenID4VP through the browser's Digital Credentials API. */
export const OPENID4VP_DC_API_PROTOCOL = 'openid4vp-v1-unsigned';

/** The same request for the browser's Digital Credentials API (OpenID4VP, unsigned): the origin replaces client_id. */
export const dcApiRequest = (pending: PendingPresentation) => ({
  response_type: 'vp_token',
  response_mode: 'dc_api',
  nonce: pending.dcApiNonce,
  dcql_query: dcqlQuery(pending.threshold),
  client_metadata: CLIENT_METADATA,
});

/**
 * A query value escaped as RFC 3986 requires and no more: `:`, `/` and `,` may stand as they are in a query, and
 * leaving them shortens the URL (and the QR code) by a tenth; every URL parser decodes both forms alike.
 */
const queryValue = (value: string): string =>
  encodeURIComponent(value).replace(/%3A/g, ':').replace(/%2F/g, '/').replace(/%2C/g, ',');

/** The URL a wallet opens (a same-device link) or scans (the QR code): `<scheme>://?<request parameters>`. */
export function walletRequestUrl(scheme: string, issuer: string, threshold: number, ids: RequestIds): string {
  const query = Object.entries(requestParameters(issuer, threshold, ids))
    .map(([name, value]) => `${name}=${queryValue(value)}`)
    .join('&');
  return `${scheme}://?${query}`;
}
