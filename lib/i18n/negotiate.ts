import { FALLBACK_LANGUAGE, isLanguage, type Language } from './languages.js';

/**
 * The page language: the request's `language` unless `auto`, else the website's unless `auto`,
 * else the best of the browser's Accept-Language among ours, else English.
 */
export function negotiateLanguage(requested: string | undefined, website: string | undefined, acceptLanguage: string | undefined): Language {
  if (isLanguage(requested)) return requested;
  if (isLanguage(website)) return website;
  return fromAcceptLanguage(acceptLanguage ?? '') ?? FALLBACK_LANGUAGE;
}

function fromAcceptLanguage(header: string): Language | undefined {
  const ranked = header.split(',').map((part, index) => {
    const [range = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { primary: range.trim().toLowerCase().split('-')[0] ?? '', q: q ? Number(q.slice(2)) : 1, index };
  });
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.find((entry) => entry.q > 0 && isLanguage(entry.primary))?.primary as Language | undefined;
}
