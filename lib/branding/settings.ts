import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { ConfigError, type SettingsSection } from '../config/settings.js';
import { AA_CONTRAST, contrastWithWhite } from './contrast.js';

/** The operator's branding, as options to createAgeProvider (`branding`) or environment variables. */
export interface BrandingOptions {
  /** the service's name in every page header and title (default "Age Provider") */
  name?: string;
  /** path of an SVG or PNG file shown in the header, served from our own origin (default: the project's logo) */
  logo?: string;
  /** the primary colour, `#rgb` or `#rrggbb`; white text on it must reach WCAG AA (4.5:1) */
  color?: string;
  privacyPolicyUrl?: string;
  termsUrl?: string;
  supportUrl?: string;
  supportEmail?: string;
  /** the legal entity running the service, named in the footer */
  operatorName?: string;
}

/** A logo read at start-up: served from memory, so the path never reaches a request. */
export interface BrandLogo {
  body: Buffer;
  type: 'image/svg+xml' | 'image/png';
  extension: 'svg' | 'png';
}

export type Branding = Omit<BrandingOptions, 'logo' | 'name' | 'color'> & {
  name: string;
  color: string;
  logo?: BrandLogo;
};

export const DEFAULT_BRAND_NAME = 'Age Provider';
/** The project's blue: 7.7:1 with white. */
export const DEFAULT_BRAND_COLOR = '#004db3';
/** A logo is shown at header size; anything bigger is a mistake (or a photo). */
const MAX_LOGO_BYTES = 512 * 1024;

const HTTPS_URL = { type: 'string', maxLength: 2000, pattern: '^https?://[^\\s/?#]+[^\\s]*$' } as const;
const TEXT = { type: 'string', minLength: 1, maxLength: 100 } as const;

/** The branding section of the configuration (docs/configuration.md "Branding"). */
export const brandingSettings: SettingsSection<Branding, BrandingOptions & { name: string; color: string }> = {
  spec: {
    name: { env: 'BRAND_NAME', schema: TEXT, default: DEFAULT_BRAND_NAME },
    logo: {
      env: 'BRAND_LOGO',
      schema: { type: 'string', minLength: 1, pattern: '\\.(svg|png)$' },
      optional: true,
      expected: 'must be the path of an .svg or .png file',
    },
    color: {
      env: 'BRAND_COLOR',
      schema: { type: 'string', pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$' },
      default: DEFAULT_BRAND_COLOR,
      expected: 'must be a colour like #004db3',
    },
    privacyPolicyUrl: {
      env: 'PRIVACY_POLICY_URL',
      schema: HTTPS_URL,
      optional: true,
      expected: 'must be an http(s) URL',
    },
    termsUrl: { env: 'TERMS_URL', schema: HTTPS_URL, optional: true, expected: 'must be an http(s) URL' },
    supportUrl: { env: 'SUPPORT_URL', schema: HTTPS_URL, optional: true, expected: 'must be an http(s) URL' },
    supportEmail: {
      env: 'SUPPORT_EMAIL',
      schema: { type: 'string', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' },
      optional: true,
      expected: 'must be an email address',
    },
    operatorName: { env: 'OPERATOR_NAME', schema: TEXT, optional: true },
  },
  finish: ({ logo, color, name, ...links }) => {
    const ratio = contrastWithWhite(color);
    if (ratio < AA_CONTRAST) {
      throw new ConfigError(
        `BRAND_COLOR: white text on ${color} has a contrast of ${ratio.toFixed(2)}:1, below the ${AA_CONTRAST}:1 WCAG AA needs; choose a darker colour`,
      );
    }
    return { ...links, name, color: color.toLowerCase(), ...(logo ? { logo: readLogo(logo) } : {}) };
  },
};

function readLogo(path: string): BrandLogo {
  let body: Buffer;
  try {
    if (statSync(path).size > MAX_LOGO_BYTES)
      throw new ConfigError(`BRAND_LOGO: larger than ${MAX_LOGO_BYTES / 1024} KiB`);
    body = readFileSync(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`BRAND_LOGO: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const png = extname(path).toLowerCase() === '.png';
  return png ? { body, type: 'image/png', extension: 'png' } : { body, type: 'image/svg+xml', extension: 'svg' };
}
