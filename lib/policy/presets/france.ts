import type { Preset } from '../preset.js';

export const france: Preset = {
  id: 'fr',
  version: '1',
  date: '2026-11-26',
  title: 'France: SREN law and the Arcom reference framework (délibération 2024-20)',
  rules: [
    {
      // Metropolitan France and the overseas departments, which have ISO 3166-1 codes of their own.
      regions: ['FR', 'GP', 'MQ', 'GF', 'RE', 'YT'],
      ageThreshold: 18,
      requireDoubleAnonymity: true,
      // Three months from the framework's adoption on 9 Oct 2024; the exact start of the transitional period is not verified.
      challengesUntil: { credit_card: '2025-01-09' },
      reuseMaxAgeSeconds: 3600,
      sources: [
        {
          title: 'Arcom reference framework: a payment card only as a transitional method, with strong authentication',
          url: 'https://legal.tricoteuses.fr/articles/JORFARTI000050385863',
          date: '2024-10-09',
          ref: 'R6',
        },
        {
          title:
            "Sites pornographiques : les nouvelles modalités de vérification de l'âge (one double-anonymity method usable by a large majority)",
          url: 'https://legalplanet.pro/sites-pornographiques-les-nouvelles-modalites-de-verification-de-lage',
          date: '2024-10-09',
          ref: 'R11',
          unverified: true,
        },
        {
          title: 'Assemblée nationale: Arcom on a check at each access to the site',
          url: 'https://nosdeputes.fr/16/intervention/380203',
          date: '2023-10-04',
          ref: 'R10',
          unverified: true,
        },
        {
          title: 'AgeVerif checker: a 60-minute session "per French regulation"',
          url: 'https://docs.ageverif.com/checker.html',
          date: '2026-11-01',
          ref: 'S1',
          unverified: true,
        },
      ],
      note:
        'At least one double-anonymity method must be offered (it comes first). A payment card counted only during a ' +
        'three-month transition. The check is expected at each access; a result is reused for at most an hour, the ' +
        'session vendors implement under the framework (a website may set 0).',
    },
  ],
};
