import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { catalogues } from '../../i18n/catalogue.js';
import type { Language } from '../../i18n/languages.js';
import { viewsDir } from '../../paths.js';
import type { ChallengeName } from '../../verification/challenge.js';
import type { Visit } from './visit.js';

/** One method on the choice page: its icon, how long it takes and what leaves the device, and where it starts. */
export interface MethodCard {
  name: ChallengeName;
  url: string;
  icon: string;
  time?: string;
  shares?: string;
}

/** Methods with their own icon in views/static (method-<name>.svg); a method added later shows the generic one until it has its own. */
const WITH_ICON: ReadonlySet<string> = new Set(readdirSync(join(viewsDir, 'static')).flatMap((file) => /^method-(\w+)\.svg$/.exec(file)?.slice(1) ?? []));

/** A catalogue text that a method may not have yet (a new method's card then shows no such line rather than failing). */
const optionalText = (language: Language, key: string): string | undefined => catalogues[language][key];

export function methodCards(visit: Visit, names: readonly ChallengeName[]): MethodCard[] {
  return names.map((name) => {
    const time = optionalText(visit.language, `interaction.challenge.${name}.time`);
    const shares = optionalText(visit.language, `interaction.challenge.${name}.shares`);
    return {
      name,
      url: visit.paths.step(name, 'start'),
      icon: `/static/method-${WITH_ICON.has(name) ? name : 'generic'}.svg`,
      ...(time ? { time } : {}),
      ...(shares ? { shares } : {}),
    };
  });
}
