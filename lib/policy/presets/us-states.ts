import type { Preset, PresetRule, Source } from '../preset.js';
import { VERIFICATION_METHODS } from './methods.js';

/**
 * One state's age-verification law for sites with material harmful to minors: government ID or transactional data,
 * never an estimate (none of these laws names estimation).
 */
function stateLaw(
  id: string,
  title: string,
  region: string,
  ageThreshold: number,
  sources: Source[],
  note: string,
  extra: Partial<PresetRule> = {},
): Preset {
  return {
    id,
    version: '1',
    date: '2026-11-26',
    title,
    rules: [{ regions: [region], ageThreshold, challenges: VERIFICATION_METHODS, sources, note, ...extra }],
  };
}

const NOT_IN_NOTES =
  'The statute is not in our research notes: its name, date and age come from the project brief and were not checked against its text.';

export const US_STATE_PRESETS: Preset[] = [
  stateLaw(
    'us-tx',
    'Texas: HB 1181 (Civ. Prac. & Rem. Code ch. 129B)',
    'US-TX',
    18,
    [
      {
        title: 'Tex. Civ. Prac. & Rem. Code § 129B.003',
        url: 'https://codes.findlaw.com/tx/civil-practice-and-remedies-code/civ-prac-rem-sect-129b-003/',
        date: '2023-09-01',
        ref: 'R17',
      },
    ],
    'Digital identification, or a commercial system using government ID or public or private transactional data. Neither the site nor the third party may retain identifying information.',
  ),
  stateLaw(
    'us-la',
    'Louisiana: Act 440',
    'US-LA',
    18,
    [
      {
        title: 'Louisiana age verification requirements',
        url: 'https://avpassociation.com/thought-leadership/louisiana-age-verification-requirements/',
        date: '2023-01-01',
        ref: 'R18',
        unverified: true,
      },
    ],
    'LA Wallet digitized ID, or a commercial system using government ID or transactional data.',
  ),
  stateLaw(
    'us-fl',
    'Florida: HB 3',
    'US-FL',
    18,
    [
      {
        title: 'Florida HB 3 / SB 1792',
        url: 'https://action.freespeechcoalition.com/bill/florida-hb-3-sb-1792',
        date: '2025-01-01',
        ref: 'R19',
        unverified: true,
      },
      {
        title: 'Online protections for minors bill (HB 3) signed',
        url: 'https://digitalpolicyalert.org/event/18676-implemented-online-protections-for-minors-bill-hb-3-by-the-governor-of-florida',
        date: '2024-03-25',
        ref: 'R19',
        unverified: true,
      },
    ],
    'An anonymous age-verification option must be offered: our double-anonymity methods are the anonymous ones, and one comes first. ' +
      "The law's conditions on the third party (retention, a US-organised company) are the operator's to meet, not a rule here.",
    { requireDoubleAnonymity: true },
  ),
  stateLaw(
    'us-ut',
    'Utah: SB 287',
    'US-UT',
    18,
    [
      {
        title: 'Utah Code § 78B-3-1001 et seq. (SB 287, 2023)',
        url: 'https://le.utah.gov/~2023/bills/static/SB0287.html',
        date: '2023-05-03',
        unverified: true,
      },
    ],
    NOT_IN_NOTES,
  ),
  stateLaw(
    'us-va',
    'Virginia: SB 1515',
    'US-VA',
    18,
    [
      {
        title: 'Code of Virginia § 59.1-586 et seq. (SB 1515, 2023)',
        url: 'https://lis.virginia.gov/bill-details/20231/SB1515',
        date: '2023-07-01',
        unverified: true,
      },
    ],
    NOT_IN_NOTES,
  ),
  stateLaw(
    'us-ms',
    'Mississippi: SB 2346',
    'US-MS',
    21,
    [
      {
        title: 'Mississippi SB 2346 (2024)',
        url: 'https://billstatus.ls.state.ms.us/2024/pdf/history/SB/SB2346.xml',
        date: '2024-07-01',
        unverified: true,
      },
    ],
    `Mississippi's age of majority is 21. ${NOT_IN_NOTES}`,
  ),
  stateLaw(
    'us-al',
    'Alabama: HB 164',
    'US-AL',
    19,
    [
      {
        title: 'Alabama HB 164 (2024)',
        url: 'https://alison.legislature.state.al.us/',
        date: '2024-10-01',
        unverified: true,
      },
    ],
    `Alabama's age of majority is 19. ${NOT_IN_NOTES}`,
  ),
];
