import { randomToken } from '../../../security/hashing.js';
import type { Sealer } from '../../../security/sealing.js';
import { bindState } from '../federated/binding.js';

/** The EU age-verification attestation: ISO mdoc document type, which is also its only namespace. */
export const AV_DOCTYPE = 'eu.europa.ec.av.1';
/** The DCQL credential query id; the wallet keys its vp_token by it. */
export const CREDENTIAL_ID = 'age_attestation';
/** Path of the fixed direct_post endpoint; the sealed `state` names the interaction. */
export const RESPONSE_PATH = '/v1/oauth2/eu-av/response';

export const ageElement = (threshold: number): string => `age_over_${String(threshold).padStart(2, '0')}`;

/** What the start step remembers (sealed in the interaction's challenge state) to check the wallet's answer. */
export interface PendingPresentation {
  state: string;
  nonce: string;
  threshold: number;
  /** set once by the response endpoint: the verdict, so a second response (a replay) is refused */
  answer?: 'over' | 'under' | 'untrusted' | 'expired' | 'invalid' | 'declined';
}

/** Our OpenID4VP identity: the `redirect_uri` client identifier prefix names the response URI (OpenID4VP 1.0 §5.9.3). */
export function verifierIdentity(issuer: string): { clientId: string; responseUri: string } {
  const responseUri = `${issuer}${RESPONSE_PATH}`;
  return { clientId: `redirect_uri:${responseUri}`, responseUri };
}

/** A fresh nonce and state for one interaction (a reload replaces them, so an older QR code stops working). */
export function newPending(sealer: Sealer, uid: string, threshold: number): PendingPresentation {
  return { state: bindState(sealer, { uid, challenge: 'eu_av' }), nonce: randomToken(24), threshold };
}

/** The DCQL query: one mdoc of the AV doctype, disclosing only age_over_NN for this threshold, not retained. */
export const dcqlQuery = (threshold: number) => ({
  credentials: [{
    id: CREDENTIAL_ID,
    format: 'mso_mdoc',
    meta: { doctype_value: AV_DOCTYPE },
    claims: [{ path: [AV_DOCTYPE, ageElement(threshold)], intent_to_retain: false }],
  }],
});

/** ES256 (COSE -7) for the issuer's and the device's signatures: what the AV blueprint's attestations use. */
const CLIENT_METADATA = { vp_formats_supported: { mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] } } };

/** The Authorization Request parameters, passed by value (the AV profile's choice; the request is unsigned). */
export function requestParameters(issuer: string, pending: PendingPresentation): Record<string, string> {
  const { clientId, responseUri } = verifierIdentity(issuer);
  return {
    client_id: clientId,
    response_type: 'vp_token',
    response_mode: 'direct_post',
    response_uri: responseUri,
    nonce: pending.nonce,
    state: pending.state,
    dcql_query: JSON.stringify(dcqlQuery(pending.threshold)),
    client_metadata: JSON.stringify(CLIENT_METADATA),
  };
}

/** The same request for the browser's Digital Credentials API (protocol `openid4vp-v1-unsigned`): the origin replaces client_id. */
export const dcApiRequest = (pending: PendingPresentation) => ({
  response_type: 'vp_token',
  response_mode: 'dc_api',
  nonce: pending.nonce,
  dcql_query: dcqlQuery(pending.threshold),
  client_metadata: CLIENT_METADATA,
});

/** The URL a wallet opens (same device) or scans (the QR code): `<scheme>://?<request parameters>`. */
export function walletRequestUrl(scheme: string, issuer: string, pending: PendingPresentation): string {
  return `${scheme}://?${new URLSearchParams(requestParameters(issuer, pending)).toString()}`;
}
