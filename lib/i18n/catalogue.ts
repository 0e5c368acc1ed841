import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { viewsDir } from '../paths.js';
import { LANGUAGES, type Language } from './languages.js';

export type Messages = Record<string, string>;
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** One language's messages: every views/locales/<lang>/<area>.json merged (one file per area, so areas never collide). */
function load(language: Language): Messages {
  const folder = join(viewsDir, 'locales', language);
  const messages: Messages = {};
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    for (const [key, value] of Object.entries(JSON.parse(readFileSync(join(folder, file), 'utf8')) as Messages)) {
      if (key in messages) throw new Error(`duplicate translation key ${language}:${key} in ${file}`);
      messages[key] = value;
    }
  }
  return messages;
}

/** Each language's flat catalogue, read once. */
export const catalogues = Object.fromEntries(LANGUAGES.map((language) => [language, load(language)])) as Record<
  Language,
  Messages
>;

/** `t(key, {name})` for one language; `{name}` placeholders are replaced. A missing key throws, so no page shows a raw key. */
export function translator(language: Language): Translate {
  const messages = catalogues[language];
  return (key, params = {}) => {
    const message = messages[key];
    if (message === undefined) throw new Error(`missing translation ${language}:${key}`);
    // Most messages have no placeholder, and a page asks for dozens: the replacement runs only where one may be.
    if (!message.includes('{')) return message;
    return message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
  };
}
