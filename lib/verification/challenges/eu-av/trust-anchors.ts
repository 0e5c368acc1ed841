import { X509Certificate } from 'node:crypto';
import { readExtensions } from './certificate-extensions.js';

/**
 * The certificates a document signer's path may end at: certification authorities (an IACA root, or any CA the
 * operator names) that issued the path's last certificate, and end-entity document signers trusted as themselves
 * (what the EU's trusted list publishes), which match only a presented signer certificate byte for byte.
 */
export interface TrustAnchors {
  authorities: readonly X509Certificate[];
  signers: readonly X509Certificate[];
}

/** Where the verifier reads the anchors at the moment of a check: fixed files, or a trusted list refreshed on a schedule. */
export interface TrustSource {
  current(): TrustAnchors;
}

/** Sorts DER certificates into authorities and end-entity signers (by basicConstraints cA); throws on one that cannot be read. */
export function trustAnchors(certificates: readonly Uint8Array[]): TrustAnchors {
  const authorities: X509Certificate[] = [];
  const signers: X509Certificate[] = [];
  for (const der of certificates) {
    const certificate = new X509Certificate(der);
    (readExtensions(certificate.raw).ca ? authorities : signers).push(certificate);
  }
  return { authorities, signers };
}

/** A source whose anchors never change (the operator's certificate files). */
export const fixedTrust = (anchors: TrustAnchors): TrustSource => ({ current: () => anchors });
