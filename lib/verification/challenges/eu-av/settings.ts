import { X509Certificate } from 'node:crypto';
import { ConfigError, outboundTimeoutSetting, type SettingsSection } from '../../../config/settings.js';
import { defaultLevelOf } from '../../catalogue.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';
import { notADocumentSigner } from './signer-path.js';
import { readCertificateFiles } from './trust-files.js';
import type { TrustedListSettings } from './trusted-list-source.js';
import type { ListFetchOptions } from './trusted-list-fetch.js';
import type { StatusLists, UnreachableStatus } from './status-list.js';
import { fixedTrust, trustAnchors, type TrustAnchors, type TrustSource } from './trust-anchors.js';

/** The operator's eu_av settings (docs/challenges.md, "eu_av"). */
export interface EuAvSettings {
  /** the certificates a document signer's path may end at (trust-anchors.ts), from the operator's files */
  trustedIssuers: TrustSource;
  /** an ETSI TS 119 612 trusted list whose services' certificates are anchors too, followed without restart */
  trustedList?: TrustedListSettings;
  /** recorded on a pass: the blueprint's "substantial" maps to ENHANCED by default */
  assuranceLevel: AssuranceLevel;
  /** schemes of the wallet request URL: one same-device link each, in this order; the first is the QR code's */
  walletSchemes: string[];
  /** how attestations' status lists are fetched, and what a status that cannot be known means */
  statusLists: { unreachable: UnreachableStatus; fetch: ListFetchOptions };
  /** the status lists themselves, set up with the challenge (index.ts); unchecked while absent */
  statuses?: { lists: StatusLists; unreachable: UnreachableStatus };
}

interface Raw {
  TRUSTED_ISSUERS?: string;
  TRUSTED_LIST?: string;
  TRUSTED_LIST_SIGNER?: string;
  TRUSTED_LIST_REFRESH_SECONDS: number;
  TRUSTED_LIST_GRACE_SECONDS: number;
  TRUSTED_LIST_ALLOW_PRIVATE: boolean;
  TRUSTED_LIST_CA?: string;
  TIMEOUT_MS: number;
  ASSURANCE_LEVEL: AssuranceLevel;
  WALLET_SCHEMES: string[];
  STATUS_LIST_UNREACHABLE: UnreachableStatus;
  STATUS_LIST_ALLOW_PRIVATE: boolean;
  STATUS_LIST_CA?: string;
}

/** Schemes a browser handles itself: a wallet request URL under one of them reaches no wallet. */
const WEB_SCHEMES: ReadonlySet<string> = new Set([
  'http',
  'https',
  'ws',
  'wss',
  'ftp',
  'file',
  'data',
  'blob',
  'about',
  'javascript',
  'mailto',
  'tel',
]);

/** The eu_av section: on when any EU_AV_* variable is set (else the challenge runs only in TEST, as the sandbox). */
export const euAvSettings: SettingsSection<EuAvSettings | undefined, Raw> = {
  enabledBy: ['EU_AV_TRUSTED_ISSUERS', 'EU_AV_TRUSTED_LIST', 'EU_AV_ASSURANCE_LEVEL', 'EU_AV_WALLET_SCHEMES'],
  spec: {
    TRUSTED_ISSUERS: {
      env: 'EU_AV_TRUSTED_ISSUERS',
      schema: { type: 'string', minLength: 1, maxLength: 4000 },
      optional: true,
    },
    TRUSTED_LIST: {
      env: 'EU_AV_TRUSTED_LIST',
      // https://…, or a path that does not begin with a scheme (plain http is refused: the list carries the trust)
      schema: { type: 'string', maxLength: 2000, pattern: '^(?:https://\\S+|(?![A-Za-z][A-Za-z0-9+.-]*:).+)$' },
      optional: true,
      expected: 'must be an https URL or a file path',
    },
    TRUSTED_LIST_SIGNER: {
      env: 'EU_AV_TRUSTED_LIST_SIGNER',
      schema: { type: 'string', minLength: 1, maxLength: 2000 },
      optional: true,
    },
    TRUSTED_LIST_REFRESH_SECONDS: {
      env: 'EU_AV_TRUSTED_LIST_REFRESH_SECONDS',
      schema: { type: 'integer', minimum: 1, maximum: 604800 },
      default: 3600,
    },
    // Past NextUpdate a list is still the newest there is for a while (a publisher late, an outage); then it stops eu_av.
    TRUSTED_LIST_GRACE_SECONDS: {
      env: 'EU_AV_TRUSTED_LIST_GRACE_SECONDS',
      schema: { type: 'integer', minimum: 0, maximum: 2592000 },
      default: 259200,
    },
    TRUSTED_LIST_ALLOW_PRIVATE: {
      env: 'EU_AV_TRUSTED_LIST_ALLOW_PRIVATE',
      schema: { type: 'boolean' },
      default: false,
    },
    TRUSTED_LIST_CA: {
      env: 'EU_AV_TRUSTED_LIST_CA',
      schema: { type: 'string', minLength: 1, maxLength: 2000 },
      optional: true,
    },
    TIMEOUT_MS: outboundTimeoutSetting,
    ASSURANCE_LEVEL: {
      env: 'EU_AV_ASSURANCE_LEVEL',
      schema: { type: 'string', enum: [...ASSURANCE_LEVELS] },
      default: defaultLevelOf('eu_av'),
    },
    // The AV profile's own scheme first (the EU age-verification app registers it), then OpenID4VP's generic one.
    WALLET_SCHEMES: {
      env: 'EU_AV_WALLET_SCHEMES',
      list: true,
      schema: {
        type: 'array',
        minItems: 1,
        maxItems: 4,
        items: { type: 'string', pattern: '^[a-z][a-z0-9+.-]{0,30}$' },
      },
      default: ['av', 'openid4vp'],
      expected: 'must be one to four URL schemes without "://", comma-separated, e.g. av,openid4vp',
    },
    // An attestation whose revocation status cannot be known is refused unless the operator accepts it.
    STATUS_LIST_UNREACHABLE: {
      env: 'EU_AV_STATUS_LIST_UNREACHABLE',
      schema: { type: 'string', enum: ['refuse', 'accept'] },
      default: 'refuse',
    },
    STATUS_LIST_ALLOW_PRIVATE: { env: 'EU_AV_STATUS_LIST_ALLOW_PRIVATE', schema: { type: 'boolean' }, default: false },
    STATUS_LIST_CA: {
      env: 'EU_AV_STATUS_LIST_CA',
      schema: { type: 'string', minLength: 1, maxLength: 2000 },
      optional: true,
    },
  },
  finish: (raw) => {
    if (!raw.TRUSTED_ISSUERS && !raw.TRUSTED_LIST)
      throw new ConfigError('EU_AV_TRUSTED_ISSUERS or EU_AV_TRUSTED_LIST must name what to trust');
    const web = raw.WALLET_SCHEMES.find((scheme) => WEB_SCHEMES.has(scheme));
    if (web)
      throw new ConfigError(
        `EU_AV_WALLET_SCHEMES: "${web}" is a web scheme, not a wallet's (a link "${web}://?client_id=…" opens no app): name wallet schemes such as av,openid4vp`,
      );
    return {
      trustedIssuers: fixedTrust(
        raw.TRUSTED_ISSUERS ? readAnchors(raw.TRUSTED_ISSUERS) : { authorities: [], signers: [] },
      ),
      ...(raw.TRUSTED_LIST ? { trustedList: trustedListSettings(raw, raw.TRUSTED_LIST) } : {}),
      assuranceLevel: raw.ASSURANCE_LEVEL,
      walletSchemes: [...new Set(raw.WALLET_SCHEMES)],
      statusLists: {
        unreachable: raw.STATUS_LIST_UNREACHABLE,
        fetch: {
          timeoutMs: raw.TIMEOUT_MS,
          allowPrivate: raw.STATUS_LIST_ALLOW_PRIVATE,
          ...(raw.STATUS_LIST_CA ? { ca: readCertificateFiles('EU_AV_STATUS_LIST_CA', raw.STATUS_LIST_CA) } : {}),
        },
      },
    };
  },
};

/** The trusted list's settings: its signer certificate is required (an unsigned or self-vouching list is no list). */
function trustedListSettings(raw: Raw, location: string): TrustedListSettings {
  if (!raw.TRUSTED_LIST_SIGNER)
    throw new ConfigError(
      "EU_AV_TRUSTED_LIST_SIGNER must name the certificate the trusted list's signature is checked against",
    );
  return {
    location,
    signers: readCertificateFiles('EU_AV_TRUSTED_LIST_SIGNER', raw.TRUSTED_LIST_SIGNER).map(
      (der) => new X509Certificate(der),
    ),
    refreshMs: raw.TRUSTED_LIST_REFRESH_SECONDS * 1000,
    graceMs: raw.TRUSTED_LIST_GRACE_SECONDS * 1000,
    fetch: {
      timeoutMs: raw.TIMEOUT_MS,
      allowPrivate: raw.TRUSTED_LIST_ALLOW_PRIVATE,
      ...(raw.TRUSTED_LIST_CA ? { ca: readCertificateFiles('EU_AV_TRUSTED_LIST_CA', raw.TRUSTED_LIST_CA) } : {}),
    },
  };
}

/**
 * The anchors in the operator's files: authorities (IACA roots or other CAs) and end-entity document signers. An
 * end-entity certificate that is not a document signer could never match a presentation: start-up says so.
 */
function readAnchors(value: string): TrustAnchors {
  const anchors = trustAnchors(readCertificateFiles('EU_AV_TRUSTED_ISSUERS', value));
  if (anchors.authorities.length + anchors.signers.length === 0)
    throw new ConfigError('EU_AV_TRUSTED_ISSUERS: no certificate found');
  for (const signer of anchors.signers) {
    const problem = notADocumentSigner(signer);
    if (problem)
      throw new ConfigError(
        `EU_AV_TRUSTED_ISSUERS: ${signer.subject.replace(/\n/g, ', ')} is an end-entity certificate but not a document signer (${problem})`,
      );
  }
  return anchors;
}
