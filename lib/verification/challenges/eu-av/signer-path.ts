import { X509Certificate } from 'node:crypto';
import { DOCUMENT_SIGNER_USAGES, OIDS, readExtensions, type CertificateExtensions } from './certificate-extensions.js';
import type { TrustAnchors } from './trust-anchors.js';

/** A document signer's path is one certificate, or a few with an intermediate; more than this is not one. */
const MAX_CHAIN = 4;

/** The extensions this check reads; any other marked critical makes a certificate one we cannot judge (RFC 5280). */
const UNDERSTOOD = new Set<string>([OIDS.basicConstraints, OIDS.keyUsage, OIDS.extKeyUsage]);

export type SignerPath =
  | { trusted: true; signer: X509Certificate }
  /** `expired`: every other check passed, but the signer certificate's validity ended before the time of the check */
  | { trusted: false; problem: string; expired?: boolean };

interface Read {
  certificate: X509Certificate;
  extensions: CertificateExtensions;
}

function read(der: Uint8Array): Read | undefined {
  try {
    const certificate = new X509Certificate(der);
    return { certificate, extensions: readExtensions(certificate.raw) };
  } catch {
    return undefined;
  }
}

/**
 * The document-signer profile: an end entity (not a CA) whose key usage is digitalSignature (never keyCertSign) and
 * whose extended key usage is a document signer's, ISO/IEC 18013-5's or the EUDI PID rulebook's (what the EU's
 * reference issuers use), and only that: a certificate also good for TLS or anything else is not a document signer
 * (docs/decisions/eu-av.md, "eu_av: the document signer").
 */
function signerProblem({ extensions }: Read): string | undefined {
  if (extensions.ca) return 'the signer certificate is a CA';
  if (!extensions.keyUsage?.digitalSignature || extensions.keyUsage.keyCertSign)
    return "the signer certificate's key usage is not digitalSignature";
  const usages = extensions.extendedKeyUsage ?? [];
  if (!usages.some((usage) => DOCUMENT_SIGNER_USAGES.includes(usage)))
    return 'the signer certificate lacks the mdoc document-signer extended key usage (1.0.18013.5.1.2 or 1.3.130.2.0.0.1.2)';
  if (!usages.every((usage) => DOCUMENT_SIGNER_USAGES.includes(usage)))
    return "the signer certificate has extended key usages besides the mdoc document signer's";
  return undefined;
}

/** Why a certificate is not a document signer (for an end-entity anchor the operator names), or undefined. */
export function notADocumentSigner(certificate: X509Certificate): string | undefined {
  const entry = read(certificate.raw);
  return entry ? signerProblem(entry) : 'the certificate cannot be read';
}

/** Whether `issuer` may have issued a certificate with `below` intermediates under it: a CA allowed to sign certificates, within its path length. */
const mayIssue = ({ extensions }: Read, below: number): boolean =>
  extensions.ca &&
  extensions.keyUsage?.keyCertSign === true &&
  (extensions.pathLength === undefined || extensions.pathLength >= below);

const issued = (child: Read, issuer: Read, below: number): boolean =>
  mayIssue(issuer, below) &&
  child.certificate.checkIssued(issuer.certificate) &&
  child.certificate.verify(issuer.certificate.publicKey);

const sameCertificate = (a: X509Certificate, b: X509Certificate): boolean => a.raw.equals(b.raw);

const validAt = ({ certificate }: Read, now: Date): boolean =>
  now >= new Date(certificate.validFrom) && now <= new Date(certificate.validTo);

/**
 * Judges an issuer signature's x5chain as ISO/IEC 18013-5 orders it: the first certificate is the document signer
 * (whose key must verify the COSE_Sign1, issuer-auth.ts), and every further certificate must issue the one before it
 * (names, CA constraints and signature), so that x5chain is one path and nothing else. The path is trusted when one
 * of its certificates is an anchor (an end-entity anchor only as the signer itself), or when an anchor authority
 * issued its last certificate. Every certificate of the path, the anchor included, must be valid at `now`.
 */
export function checkSignerPath(chain: readonly Uint8Array[], anchors: TrustAnchors, now: Date): SignerPath {
  if (chain.length === 0 || chain.length > MAX_CHAIN)
    return { trusted: false, problem: `x5chain holds ${chain.length} certificates` };
  const path = chain.map(read);
  if (!path.every((entry): entry is Read => entry !== undefined))
    return { trusted: false, problem: 'x5chain holds a certificate that cannot be read' };
  if (new Set(path.map(({ certificate }) => certificate.fingerprint256)).size !== path.length)
    return { trusted: false, problem: 'x5chain repeats a certificate' };
  if (path.some(({ extensions }) => extensions.critical.some((oid) => !UNDERSTOOD.has(oid))))
    return {
      trusted: false,
      problem: 'x5chain holds a certificate with a critical extension this check does not read',
    };
  const [signer] = path as [Read, ...Read[]];

  const notSigner = signerProblem(signer);
  if (notSigner) return { trusted: false, problem: notSigner };
  for (let index = 1; index < path.length; index += 1) {
    if (!issued(path[index - 1]!, path[index]!, index - 1))
      return {
        trusted: false,
        problem: `x5chain is not one path: certificate ${index} did not issue certificate ${index - 1}`,
      };
  }

  const anchored = anchorOf(path, anchors);
  if (!anchored) return { trusted: false, problem: 'the signer certificate has no path to a trusted certificate' };
  if (!validAt(signer, now))
    return {
      trusted: false,
      problem: 'the signer certificate is not valid now',
      expired: now > new Date(signer.certificate.validTo),
    };
  if (![...path, ...anchored].every((entry) => validAt(entry, now)))
    return { trusted: false, problem: "a certificate of the signer's path is not valid now" };
  return { trusted: true, signer: signer.certificate };
}

/** The anchor the path ends at, beyond the path itself (empty when a certificate of x5chain is the anchor), or undefined. */
function anchorOf(path: readonly Read[], anchors: TrustAnchors): Read[] | undefined {
  if (anchors.signers.some((anchor) => sameCertificate(anchor, path[0]!.certificate))) return [];
  if (
    path.slice(1).some(({ certificate }) => anchors.authorities.some((anchor) => sameCertificate(anchor, certificate)))
  )
    return [];
  const last = path.at(-1)!;
  for (const authority of anchors.authorities) {
    const anchor = read(authority.raw);
    if (anchor && issued(last, anchor, path.length - 1)) return [anchor];
  }
  return undefined;
}
