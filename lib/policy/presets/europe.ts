import type { Preset, Source } from '../preset.js';
import { VERIFICATION_METHODS } from './methods.js';

/** The member states of the European Union, ISO 3166-1 (Greece is GR). */
const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
];

const DSA_GUIDELINES: Source[] = [
  {
    title: 'Commission guidelines on the protection of minors under Article 28 DSA (OJ C 2025/5519), as summarised',
    url: 'https://digitalpolicyalert.org/event/31906',
    date: '2025-07-14',
    ref: 'R14',
    unverified: true,
  },
  {
    title: 'New Commission guidelines on age assurance and minors protections under the DSA',
    url: 'https://eudigitallaw.com/new-commission-guidelines-on-age-assurance-and-minors-protections-under-the-dsa',
    date: '2025-07-14',
    ref: 'R15',
    unverified: true,
  },
  {
    title: 'EC releases guidelines on protection of children under DSA',
    url: 'https://verifymy.io/blog/ec-releases-guidelines-on-protection-of-children-under-dsa',
    date: '2025-07-14',
    ref: 'R16',
    unverified: true,
  },
];

const VERIFICATION_NOT_ESTIMATION =
  'For pornography, gambling and alcohol the guidelines ask for age verification, not estimation (estimation only at ' +
  'lower risk and where independently audited); self-declaration is never enough. This preset takes the high-risk reading: estimation methods are left out.';

export const euDefault: Preset = {
  id: 'eu-default',
  version: '1',
  date: '2026-11-26',
  title: 'European Union: DSA Article 28 guidelines, high-risk services',
  rules: [
    {
      regions: EU_MEMBER_STATES,
      ageThreshold: 18,
      challenges: VERIFICATION_METHODS,
      sources: DSA_GUIDELINES,
      note: VERIFICATION_NOT_ESTIMATION,
    },
  ],
};

export const germany: Preset = {
  id: 'de',
  version: '1',
  date: '2026-11-26',
  title: 'Germany',
  rules: [
    {
      regions: ['DE'],
      ageThreshold: 18,
      challenges: VERIFICATION_METHODS,
      sources: [
        ...DSA_GUIDELINES,
        {
          title: 'Jugendmedienschutz-Staatsvertrag (JMStV), § 4(2): closed user groups',
          url: 'https://www.kjm-online.de/',
          date: '2003-04-01',
          unverified: true,
        },
      ],
      note: `${VERIFICATION_NOT_ESTIMATION} The national criteria of the KJM for closed user groups are not in our research notes; until they are, this preset holds Germany to the EU reading alone.`,
    },
  ],
};

export const italy: Preset = {
  id: 'it',
  version: '1',
  date: '2026-11-26',
  title: 'Italy',
  rules: [
    {
      regions: ['IT'],
      ageThreshold: 18,
      challenges: VERIFICATION_METHODS,
      requireDoubleAnonymity: true,
      sources: [
        ...DSA_GUIDELINES,
        {
          title: 'AGCOM, delibera n. 96/25/CONS: technical and procedural arrangements for age verification',
          url: 'https://www.agcom.it/',
          date: '2025-04-18',
          unverified: true,
        },
      ],
      note: `${VERIFICATION_NOT_ESTIMATION} AGCOM's arrangements ask for a "double anonymity" method; the delibera is not in our research notes and was not checked against its text.`,
    },
  ],
};

export const spain: Preset = {
  id: 'es',
  version: '1',
  date: '2026-11-26',
  title: 'Spain',
  rules: [
    {
      regions: ['ES'],
      ageThreshold: 18,
      challenges: VERIFICATION_METHODS,
      sources: [
        {
          title: 'AEPD: decoding Article 28 DSA, age assurance and service design for online platforms',
          url: 'https://www.aepd.es/en/press-and-communication/blog/decoding-article-28-dsa-age-assurance-service-design-online-platforms',
          date: '2025-07-14',
          ref: 'R13',
        },
        ...DSA_GUIDELINES,
      ],
      note: `${VERIFICATION_NOT_ESTIMATION} The Spanish data-protection authority reads Article 28 as asking for no extra personal data; our double-anonymity methods are the ones it favours, but it does not require them.`,
    },
  ],
};
