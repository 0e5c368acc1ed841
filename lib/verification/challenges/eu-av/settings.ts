import { ConfigError, type SettingsSection } from '../../../config/settings.js';
import { defaultLevelOf } from '../../catalogue.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';
import { notADocumentSigner } from './signer-path.js';
import { readCertificateFiles } from './trust-files.js';
import { fixedTrust, trustAnchors, type TrustAnchors, type TrustSource } from './trust-anchors.js';

/** The operator's eu_av settings (docs/challenges.md, "eu_av"). */
export interface EuAvSettings {
  /** the certificates a document signer's path may end at (trust-anchors.ts) */
  trustedIssuers: TrustSource;
  /** recorded on a pass: the blueprint's "substantial" maps to ENHANCED by default */
  assuranceLevel: AssuranceLevel;
  /** scheme of the wallet request URL (the QR code and the same-device link) */
  walletScheme: string;
}

interface Raw {
  TRUSTED_ISSUERS: string;
  ASSURANCE_LEVEL: AssuranceLevel;
  WALLET_SCHEME: string;
}

/** The eu_av section: on when any EU_AV_* variable is set (else the challenge runs only in TEST, as the sandbox). */
export const euAvSettings: SettingsSection<EuAvSettings | undefined, Raw> = {
  enabledBy: ['EU_AV_TRUSTED_ISSUERS', 'EU_AV_ASSURANCE_LEVEL', 'EU_AV_WALLET_SCHEME'],
  spec: {
    TRUSTED_ISSUERS: { env: 'EU_AV_TRUSTED_ISSUERS', schema: { type: 'string', minLength: 1, maxLength: 4000 } },
    ASSURANCE_LEVEL: { env: 'EU_AV_ASSURANCE_LEVEL', schema: { type: 'string', enum: [...ASSURANCE_LEVELS] }, default: defaultLevelOf('eu_av') },
    WALLET_SCHEME: {
      env: 'EU_AV_WALLET_SCHEME',
      schema: { type: 'string', pattern: '^[a-z][a-z0-9+.-]{0,30}$' },
      default: 'openid4vp',
      expected: 'must be a URL scheme without "://", e.g. openid4vp',
    },
  },
  finish: (raw) => ({ trustedIssuers: fixedTrust(readAnchors(raw.TRUSTED_ISSUERS)), assuranceLevel: raw.ASSURANCE_LEVEL, walletScheme: raw.WALLET_SCHEME }),
};

/**
 * The anchors in the operator's files: authorities (IACA roots or other CAs) and end-entity document signers. An
 * end-entity certificate that is not a document signer could never match a presentation: start-up says so.
 */
function readAnchors(value: string): TrustAnchors {
  const anchors = trustAnchors(readCertificateFiles('EU_AV_TRUSTED_ISSUERS', value));
  if (anchors.authorities.length + anchors.signers.length === 0) throw new ConfigError('EU_AV_TRUSTED_ISSUERS: no certificate found');
  for (const signer of anchors.signers) {
    const problem = notADocumentSigner(signer);
    if (problem) throw new ConfigError(`EU_AV_TRUSTED_ISSUERS: ${signer.subject.replace(/\n/g, ', ')} is an end-entity certificate but not a document signer (${problem})`);
  }
  return anchors;
}
