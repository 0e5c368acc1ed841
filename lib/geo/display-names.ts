import type { Language } from '../i18n/languages.js';
import { US_SUBDIVISION_NAMES } from './subdivision-names.js';

/** A location as a visitor reads it: names in their language, null where we do not know. */
export interface PlaceNames {
  country: string | null;
  subdivision: string | null;
}

const countryNames = new Map<Language, Intl.DisplayNames>();

function countryName(code: string, language: Language): string {
  let names = countryNames.get(language);
  if (!names)
    countryNames.set(language, (names = new Intl.DisplayNames([language], { type: 'region', fallback: 'code' })));
  return names.of(code) ?? code;
}

/**
 * Names for a verification's country and subdivision. `ZZ` (ISO's "unknown") has no name: the page says in words
 * that the location is unknown. Intl has no subdivision names; the US list is ours (the states' names are the same
 * in our six languages but for a few exonyms), and another country's subdivision is shown by its ISO code.
 */
export function placeNames(country: string, subdivision: string | null | undefined, language: Language): PlaceNames {
  if (country === 'ZZ') return { country: null, subdivision: null };
  const subdivisionName = subdivision ? (US_SUBDIVISION_NAMES[subdivision] ?? subdivision) : null;
  return { country: countryName(country, language), subdivision: subdivisionName };
}
