import { ACCEPTED_CREDENTIALS, type AcceptedCredential } from './request.js';

export type PresentationVerdict =
  | { verdict: 'over' | 'under' }
  /** `problem`: which check failed, for the log (never a value from the attestation) */
  | { verdict: 'invalid'; problem: string };

export interface Expectation {
  /** the session transcript the device must have signed (transcript.ts), binding the answer to this request */
  transcript: Uint8Array;
  threshold: number;
  now: Date;
  /** the credential the wallet answered with (request.ts); the AV attestation unless said */
  credential?: AcceptedCredential;
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
  // Loaded on the first presentation: the library and its dependencies weigh about 13 MB an instance without a
  // configured eu_av never needs.
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
  const { doctype, namespace } = expected.credential ?? ACCEPTED_CREDENTIALS[0];
  if (document.docType !== doctype || docType !== doctype) return { verdict: 'invalid', problem: `not a document of type ${doctype}` };
  if (expected.now < validityInfo.validFrom || expected.now > validityInfo.validUntil) return { verdict: 'invalid', problem: 'attestation outside its validity window' };
  return ageAnswer(document.issuerSigned.nameSpaces[namespace] ?? [], expected.threshold);
}

/**
 * The one presentation in an OpenID4VP 1.0 vp_token ({"<credential query id>": ["<base64url DeviceResponse>"]}) and
 * the credential it answers: exactly one of the accepted ids, with exactly one presentation. Undefined otherwise.
 */
function presentationOf(vpToken: string): { credential: AcceptedCredential; encoded: Uint8Array } | undefined {
  try {
    const token: unknown = JSON.parse(vpToken);
    if (typeof token !== 'object' || token === null || Array.isArray(token)) return undefined;
    const entries = Object.entries(token);
    const credential = ACCEPTED_CREDENTIALS.find(({ id }) => id === entries[0]?.[0]);
    const presentations: unknown = entries[0]?.[1];
    if (entries.length !== 1 || !credential || !Array.isArray(presentations) || presentations.length !== 1 || typeof presentations[0] !== 'string') return undefined;
    return { credential, encoded: Buffer.from(presentations[0], 'base64url') };
  } catch {
    return undefined;
  }
}

/** The verdict on a whole vp_token (JSON text), and which credential answered (`av` or `pid`) when it could be read. */
export async function judgeVpToken(vpToken: string, trusted: readonly string[], expected: Expectation): Promise<PresentationVerdict & { credential?: AcceptedCredential['kind'] }> {
  const presentation = presentationOf(vpToken);
  if (!presentation) return { verdict: 'invalid', problem: 'vp_token is not one presentation for the query' };
  const judged = await judgePresentation(presentation.encoded, trusted, { ...expected, credential: presentation.credential });
  return { ...judged, credential: presentation.credential.kind };
}

/** What the log says about a received presentation: the interaction, the way it came, the credential, the verdict and why (no attestation value). */
export const verdictLog = (uid: string, via: 'direct_post' | 'dc_api', judged: (PresentationVerdict & { credential?: string }) | { verdict: 'declined' }): Record<string, unknown> =>
  ({ uid, via, verdict: judged.verdict, ...('credential' in judged ? { credential: judged.credential } : {}), ...('problem' in judged ? { problem: judged.problem } : {}) });
