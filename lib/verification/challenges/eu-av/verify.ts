import { AV_DOCTYPE, CREDENTIAL_ID } from './request.js';

export type PresentationVerdict =
  | { verdict: 'over' | 'under' }
  /** `problem`: which check failed, for the log (never a value from the attestation) */
  | { verdict: 'invalid'; problem: string };

export interface Expectation {
  /** the session transcript the device must have signed (transcript.ts), binding the answer to this request */
  transcript: Uint8Array;
  threshold: number;
  now: Date;
}

const AGE_OVER = /^age_over_(\d{2})$/;

/**
 * The age answer among the disclosed elements: over when some age_over_NN with NN ≥ threshold is true; under when
 * some age_over_NN with NN ≤ threshold is false; otherwise nothing usable was disclosed.
 */
function ageAnswer(elements: ReadonlyArray<{ elementIdentifier: string; elementValue: unknown }>, threshold: number): PresentationVerdict {
  let under = false;
  for (const { elementIdentifier, elementValue } of elements) {
    const age = Number(AGE_OVER.exec(elementIdentifier)?.[1] ?? Number.NaN);
    if (Number.isNaN(age)) continue;
    if (elementValue === true && age >= threshold) return { verdict: 'over' };
    if (elementValue === false && age <= threshold) under = true;
  }
  return under ? { verdict: 'under' } : { verdict: 'invalid', problem: 'no usable age_over element disclosed' };
}

/**
 * Checks a DeviceResponse through @auth0/mdl: the issuer's COSE_Sign1 and its x5chain up to a trusted certificate,
 * the MSO's validity window, the digest of every disclosed element, and the device signature over the session
 * transcript (our client_id, nonce and response URI; or our origin and nonce through the Digital Credentials API). Then our own checks: exactly one document of the
 * AV doctype, the validity window against our clock, and the age answer. Nothing is kept.
 */
export async function judgePresentation(encoded: Uint8Array, trusted: readonly string[], expected: Expectation): Promise<PresentationVerdict> {
  // Loaded on the first presentation: the library and its dependencies weigh megabytes an instance without a
  // configured eu_av never needs (docs/performance.md "Measurements behind code choices").
  const { DeviceSignedDocument, Verifier } = await import('@auth0/mdl');
  let documents;
  try {
    ({ documents } = await new Verifier([...trusted]).verify(encoded, { encodedSessionTranscript: expected.transcript }));
  } catch (error) {
    return { verdict: 'invalid', problem: error instanceof Error ? error.message.slice(0, 200) : 'unreadable device response' };
  }
  const [document] = documents;
  if (documents.length !== 1 || !document || !(document instanceof DeviceSignedDocument)) return { verdict: 'invalid', problem: 'not exactly one device-signed document' };
  const { docType, validityInfo } = document.issuerSigned.issuerAuth.decodedPayload;
  if (document.docType !== AV_DOCTYPE || docType !== AV_DOCTYPE) return { verdict: 'invalid', problem: 'not an age-verification attestation' };
  if (expected.now < validityInfo.validFrom || expected.now > validityInfo.validUntil) return { verdict: 'invalid', problem: 'attestation outside its validity window' };
  return ageAnswer(document.issuerSigned.nameSpaces[AV_DOCTYPE] ?? [], expected.threshold);
}

/** The one presentation in an OpenID4VP 1.0 vp_token ({"<credential query id>": ["<base64url DeviceResponse>"]}), or undefined. */
function presentationOf(vpToken: string): Uint8Array | undefined {
  try {
    const token: unknown = JSON.parse(vpToken);
    const presentations = (token as Record<string, unknown> | null)?.[CREDENTIAL_ID];
    if (!Array.isArray(presentations) || presentations.length !== 1 || typeof presentations[0] !== 'string') return undefined;
    return Buffer.from(presentations[0], 'base64url');
  } catch {
    return undefined;
  }
}

/** The verdict on a whole vp_token as the wallet sent it (form field, JSON text). */
export async function judgeVpToken(vpToken: string, trusted: readonly string[], expected: Expectation): Promise<PresentationVerdict> {
  const presentation = presentationOf(vpToken);
  return presentation ? judgePresentation(presentation, trusted, expected) : { verdict: 'invalid', problem: 'vp_token is not one presentation for the query' };
}

/** What the log says about a received presentation: the interaction, the way it came, the verdict and why (no attestation value). */
export const verdictLog = (uid: string, via: 'direct_post' | 'dc_api', judged: PresentationVerdict | { verdict: 'declined' }): Record<string, unknown> =>
  ({ uid, via, verdict: judged.verdict, ...('problem' in judged ? { problem: judged.problem } : {}) });
