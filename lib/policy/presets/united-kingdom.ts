import type { Preset } from '../preset.js';

export const unitedKingdom: Preset = {
  id: 'gb',
  version: '1',
  date: '2026-11-26',
  title: 'United Kingdom: Online Safety Act, Ofcom guidance on highly effective age assurance',
  rules: [
    {
      regions: ['GB'],
      ageThreshold: 18,
      // Ofcom's kinds, mapped to ours: facial estimation (selfie), email-based estimation (email_age), credit card,
      // digital identity services (eu_av, anonymage, pleenk, agekey). A ticket, PayPal and AgeGO are not among them.
      challenges: ['selfie', 'email_age', 'credit_card', 'anonymage', 'pleenk', 'agekey', 'eu_av'],
      sources: [
        {
          title: 'A new age: Ofcom publishes final version of age assurance guidance',
          url: 'https://lewissilkin.com/en/insights/2025/01/16/a-new-age-ofcom-publishes-final-version-of-age-assurance-guidance-102ju6k',
          date: '2025-01-16',
          ref: 'R1',
          unverified: true,
        },
        {
          title: 'Ofcom publishes highly anticipated age assurance statement',
          url: 'https://www.biometricupdate.com/202501/ofcom-publishes-highly-anticipated-age-assurance-statement',
          date: '2025-01-16',
          ref: 'R2',
          unverified: true,
        },
        {
          title: 'Ofcom: online pornography',
          url: 'https://ofcom.org.uk/online-safety/illegal-and-harmful-content/online-pornography',
          date: '2025-01-16',
          ref: 'R4',
        },
      ],
      note:
        "A method from Ofcom's non-exhaustive list of methods capable of being highly effective; self-declaration and " +
        'payment methods open to under-18s never. Open banking, photo-ID matching and mobile-operator checks have no challenge here yet.',
    },
  ],
};
