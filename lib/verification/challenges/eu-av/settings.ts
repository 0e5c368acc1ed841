import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { ConfigError, type SettingsSection } from '../../../config/settings.js';
import { defaultLevelOf } from '../../catalogue.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';
import { fixedTrust, trustAnchors, type TrustSource } from './trust-anchors.js';

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
  finish: (raw) => ({ trustedIssuers: fixedTrust(trustAnchors(readTrustList(raw.TRUSTED_ISSUERS).map((pem) => new X509Certificate(pem).raw))), assuranceLevel: raw.ASSURANCE_LEVEL, walletScheme: raw.WALLET_SCHEME }),
};

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate in the PEM files named (comma-separated files or directories; a directory's *.pem and *.crt). */
function readTrustList(value: string): string[] {
  const files = value.split(',').map((entry) => entry.trim()).filter(Boolean).flatMap((entry) => {
    let directory: boolean;
    try {
      directory = statSync(entry).isDirectory();
    } catch {
      throw new ConfigError(`EU_AV_TRUSTED_ISSUERS: ${entry} cannot be read`);
    }
    return directory ? readdirSync(entry).filter((name) => /\.(pem|crt)$/i.test(name)).sort().map((name) => join(entry, name)) : [entry];
  });
  const certificates = files.flatMap((file) => readFileSync(file, 'utf8').match(PEM_BLOCK) ?? []);
  for (const pem of certificates) {
    try {
      new X509Certificate(pem);
    } catch {
      throw new ConfigError('EU_AV_TRUSTED_ISSUERS: holds a certificate that cannot be parsed');
    }
  }
  if (certificates.length === 0) throw new ConfigError('EU_AV_TRUSTED_ISSUERS: no PEM certificate found');
  return certificates;
}
