import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { catalogues } from '../../i18n/catalogue.js';
import type { Language } from '../../i18n/languages.js';
import { viewsDir } from '../../paths.js';
import type { ChallengeName } from '../../verification/challenge.js';
import type { Visit } from './visit.js';

/** One challenge on the choice page: its icon, how long it takes and what leaves the device, and where it starts. */
export interface ChallengeCard {
  name: ChallengeName;
  url: string;
  icon: string;
  time?: string;
  shares?: string;
}

/** Challenges with their own icon in views/static (challenge-<name>.svg); a challenge added later shows the generic one until it has its own. */
const WITH_ICON: ReadonlySet<string> = new Set(
  readdirSync(join(viewsDir, 'static')).flatMap((file) => /^challenge-(\w+)\.svg$/.exec(file)?.slice(1) ?? []),
);

/** A catalogue text that a challenge may not have yet (a new challenge's card then shows no such line rather than failing). */
const optionalText = (language: Language, key: string): string | undefined => catalogues[language][key];

export function challengeCards(visit: Visit, names: readonly ChallengeName[]): ChallengeCard[] {
  return names.map((name) => {
    const time = optionalText(visit.language, `interaction.challenge.${name}.time`);
    const shares = optionalText(visit.language, `interaction.challenge.${name}.shares`);
    return {
      name,
      url: visit.paths.step(name, 'start'),
      icon: `/static/challenge-${WITH_ICON.has(name) ? name : 'generic'}.svg`,
      ...(time ? { time } : {}),
      ...(shares ? { shares } : {}),
    };
  });
}
