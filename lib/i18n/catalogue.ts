import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { viewsDir } from '../paths.js';
import { LANGUAGES, type Language } from './languages.js';

export type Messages = Record<string, string>;
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** Each language's flat catalogue from views/locales/<lang>.json, read once. */
export const catalogues: Record<Language, Messages> = Object.fromEntries(
  LANGUAGES.map((language) => [language, JSON.parse(readFileSync(join(viewsDir, 'locales', `${language}.json`), 'utf8')) as Messages]),
) as Record<Language, Messages>;

/** `t(key, {name})` for one language; `{name}` placeholders are replaced. A missing key throws, so no page shows a raw key. */
export function translator(language: Language): Translate {
  const messages = catalogues[language];
  return (key, params = {}) => {
    const message = messages[key];
    if (message === undefined) throw new Error(`missing translation ${language}:${key}`);
    return message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
  };
}
