import { deviceAuthProblem, issuerSignatureValid, readIssuerAuth, type IssuerAuth } from './issuer-auth.js';
import { ACCEPTED_CREDENTIALS, AV_DOCTYPE, type AcceptedCredential } from './request.js';
import { checkSignerPath } from './signer-path.js';
import { statusReference, type StatusLists, type UnreachableStatus } from './status-list.js';
import type { TrustAnchors, TrustSource } from './trust-anchors.js';

/**
 * Why a presentation is refused, for the visitor (challenge.ts turns it into the words they read): its issuer could not
 * be trusted (no path to an anchor, a bad signer, a signature or digest that does not verify), it has expired (the MSO's
 * window or the signer certificate), or it is otherwise unusable (unreadable, not for this request, not an answer).
 */
export type Refusal = 'untrusted' | 'expired' | 'revoked' | 'invalid';

export type PresentationVerdict =
  /** `doctype`: which attestation answered */
  | { verdict: 'over' | 'under'; doctype: string }
  /** `problem`: which check failed, for the log (never a value from the attestation) */
  | { verdict: Refusal; problem: string };

/**
 * The document types a presentation may be of unless the request says (a vp_token names its credential, which fixes
 * one: request.ts); each one's age_over_NN elements sit in the namespace named like the document type (true of the AV
 * attestation and of the PID).
 */
export const ACCEPTED_DOCTYPES: readonly string[] = [AV_DOCTYPE];

export interface Expectation {
  /** the document types this request accepts (ACCEPTED_DOCTYPES unless given) */
  doctypes?: readonly string[];
  /** the session transcript the device must have signed (transcript.ts), binding the answer to this request */
  transcript: Uint8Array;
  threshold: number;
  now: Date;
  /** the attestation's revocation status (status-list.ts), and what an unknown status means; unchecked when absent */
  statuses?: { lists: StatusLists; unreachable: UnreachableStatus };
}

const AGE_OVER = /^age_over_(\d{2})$/;

/**
 * The age answer among the disclosed elements: over when some age_over_NN with NN ≥ threshold is true; under when
 * some age_over_NN with NN ≤ threshold is false; otherwise nothing usable was disclosed.
 */
function ageAnswer(
  doctype: string,
  elements: ReadonlyArray<{ elementIdentifier: string; elementValue: unknown }>,
  threshold: number,
): PresentationVerdict {
  let under = false;
  for (const { elementIdentifier, elementValue } of elements) {
    const age = Number(AGE_OVER.exec(elementIdentifier)?.[1] ?? Number.NaN);
    if (Number.isNaN(age)) continue;
    if (elementValue === true && age >= threshold) return { verdict: 'over', doctype };
    if (elementValue === false && age <= threshold) under = true;
  }
  return under
    ? { verdict: 'under', doctype }
    : { verdict: 'invalid', problem: 'no usable age_over element disclosed' };
}

/** What we read of a check the library reports as failed. */
interface FailedCheck {
  id: string;
  category?: string;
  check: string;
}

/**
 * The library's first failed check as a refusal: an MSO past its window has expired; the rest of the issuer's side
 * (its signature, the MSO's dates against the certificate, the digests) cannot be trusted; anything else (the device
 * signature over our transcript, the format) makes the answer unusable.
 */
function libraryRefusal(failed: FailedCheck, validUntil: Date | undefined, now: Date): PresentationVerdict {
  if (failed.id === 'MSO_VALIDITY_AT_VERIFICATION_TIME' && validUntil && now > validUntil)
    return { verdict: 'expired', problem: failed.check };
  const issuerSide = failed.category === 'ISSUER_AUTH' || failed.category === 'DATA_INTEGRITY';
  return { verdict: issuerSide ? 'untrusted' : 'invalid', problem: failed.check };
}

/**
 * Checks a DeviceResponse. First our own reading of the issuer signature (issuer-auth.ts, signer-path.ts): the first
 * certificate of x5chain is an mdoc document signer, x5chain is one path from it to a trusted anchor, every
 * certificate of it valid now, and its key verifies the issuer's COSE_Sign1. Then @auth0/mdl, with its own chain
 * check off (it validates another certificate than the one whose key it uses: docs/decisions/eu-av.md, "eu_av: the
 * document signer"): the same signature again with the same first certificate, the digest of every disclosed
 * element, and the device signature over the session transcript (our client_id, nonce and response URI; or our
 * origin and nonce through the Digital Credentials API). Then exactly one document, of a type the request accepts, the
 * MSO's validity window against our clock, and the age answer. Nothing is kept.
 */
export async function judgePresentation(
  encoded: Uint8Array,
  anchors: TrustAnchors,
  expected: Expectation,
): Promise<PresentationVerdict> {
  const issuerAuth = readIssuerAuth(encoded);
  if (typeof issuerAuth === 'string') return { verdict: 'invalid', problem: issuerAuth };
  const path = checkSignerPath(issuerAuth.x5chain, anchors, expected.now);
  if (!path.trusted) return { verdict: path.expired ? 'expired' : 'untrusted', problem: path.problem };
  if (!issuerSignatureValid(issuerAuth, path.signer))
    return { verdict: 'untrusted', problem: 'the issuer signature does not verify with the signer certificate' };
  const deviceAuth = deviceAuthProblem(encoded);
  if (deviceAuth) return { verdict: 'invalid', problem: deviceAuth };

  // Loaded on the first presentation: the library and its dependencies weigh megabytes an instance without a
  // configured eu_av never needs (docs/performance.md "Measurements behind code choices").
  const { DeviceSignedDocument, Verifier } = await import('@auth0/mdl');
  const failures: FailedCheck[] = [];
  let documents;
  try {
    ({ documents } = await new Verifier([]).verify(encoded, {
      encodedSessionTranscript: expected.transcript,
      disableCertificateChainValidation: true,
      onCheck: (assessment) => {
        if (assessment.status === 'FAILED')
          failures.push({ id: assessment.id, category: assessment.category, check: assessment.check });
      },
    }));
  } catch (error) {
    return {
      verdict: 'invalid',
      problem: error instanceof Error ? error.message.slice(0, 200) : 'unreadable device response',
    };
  }
  const [document] = documents;
  if (documents.length !== 1 || !document || !(document instanceof DeviceSignedDocument))
    return { verdict: 'invalid', problem: 'not exactly one device-signed document' };
  const { docType, validityInfo } = document.issuerSigned.issuerAuth.decodedPayload;
  const [failed] = failures;
  if (failed) return libraryRefusal(failed, validityInfo?.validUntil, expected.now);
  const { x5chain } = document.issuerSigned.issuerAuth;
  // The library must have judged the signature with the very certificate whose path was validated above.
  if (!x5chain?.[0] || !path.signer.raw.equals(x5chain[0]))
    return { verdict: 'invalid', problem: 'the library read another signer certificate' };
  if (document.docType !== docType || !(expected.doctypes ?? ACCEPTED_DOCTYPES).includes(docType))
    return { verdict: 'invalid', problem: 'not a document type this request accepts' };
  if (expected.now > validityInfo.validUntil)
    return { verdict: 'expired', problem: 'attestation past its validity window' };
  if (expected.now < validityInfo.validFrom) return { verdict: 'invalid', problem: 'attestation not valid yet' };
  const answer = ageAnswer(docType, document.issuerSigned.nameSpaces[docType] ?? [], expected.threshold);
  return 'problem' in answer ? answer : ((await revocation(issuerAuth, anchors, expected)) ?? answer);
}

/**
 * Why the attestation's status refuses it, or undefined: revoked (or suspended) in its status list; or its status
 * cannot be known (the list unreachable, unverifiable) and the operator refuses then (EU_AV_STATUS_LIST_UNREACHABLE).
 */
async function revocation(
  issuerAuth: IssuerAuth,
  anchors: TrustAnchors,
  expected: Expectation,
): Promise<PresentationVerdict | undefined> {
  if (!expected.statuses) return undefined;
  const reference = statusReference(issuerAuth);
  if (reference === undefined) return undefined;
  if (typeof reference === 'string') return { verdict: 'invalid', problem: reference };
  const status = await expected.statuses.lists.check(reference, anchors);
  if (status.status === 'revoked')
    return { verdict: 'revoked', problem: 'the attestation is revoked or suspended in its status list' };
  if (status.status === 'unknown' && expected.statuses.unreachable === 'refuse')
    return { verdict: 'untrusted', problem: status.problem };
  return undefined;
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
    if (
      entries.length !== 1 ||
      !credential ||
      !Array.isArray(presentations) ||
      presentations.length !== 1 ||
      typeof presentations[0] !== 'string'
    )
      return undefined;
    return { credential, encoded: Buffer.from(presentations[0], 'base64url') };
  } catch {
    return undefined;
  }
}

/**
 * The verdict on a whole vp_token (JSON text): the credential id it answers fixes the one document type accepted, so a
 * document sent under the other credential's id is refused.
 */
export async function judgeVpToken(
  vpToken: string,
  trust: TrustSource,
  expected: Expectation,
): Promise<PresentationVerdict> {
  const presentation = presentationOf(vpToken);
  if (!presentation) return { verdict: 'invalid', problem: 'vp_token is not one presentation for the query' };
  return judgePresentation(presentation.encoded, trust.current(), {
    ...expected,
    doctypes: [presentation.credential.doctype],
  });
}

/** What the log says about a received presentation: the interaction, the way it came, the verdict, which document type answered or why it was refused (no attestation value). */
export const verdictLog = (
  uid: string,
  via: 'direct_post' | 'dc_api',
  judged: PresentationVerdict | { verdict: 'declined' },
): Record<string, unknown> => ({
  uid,
  via,
  verdict: judged.verdict,
  ...('problem' in judged ? { problem: judged.problem } : {}),
  ...('doctype' in judged ? { doctype: judged.doctype } : {}),
});
