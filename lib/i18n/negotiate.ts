import type { Context } from 'koa';
import { FALLBACK_LANGUAGE, isLanguage, LANGUAGE_CHOICES, type Language } from './languages.js';

/**
 * The page language: the request's `language` unless `auto`, else the website's unless `auto`,
 * else the best of the browser's Accept-Language among ours, else English.
 */
export function negotiateLanguage(
  requested: string | undefined,
  website: string | undefined,
  acceptLanguage: string | undefined,
): Language {
  if (isLanguage(requested)) return requested;
  if (isLanguage(website)) return website;
  return fromAcceptLanguage(acceptLanguage ?? '') ?? FALLBACK_LANGUAGE;
}

/**
 * Why a request's `language` was not used as given (negotiation decided instead), or undefined when it was used or
 * absent: the website's developer finds the reason in the log rather than the visitor meeting an error.
 */
export function ignoredLanguage(requested: string | undefined): 'mis-cased' | 'unknown' | undefined {
  if (requested === undefined || (LANGUAGE_CHOICES as readonly string[]).includes(requested)) return undefined;
  return (LANGUAGE_CHOICES as readonly string[]).includes(requested.toLowerCase()) ? 'mis-cased' : 'unknown';
}

/** The browser's language (Accept-Language), for pages no request or website chose a language for. */
export const browserLanguage = (ctx: Context): Language =>
  negotiateLanguage(undefined, undefined, ctx.get('Accept-Language'));

/** RFC 9110 §12.5.4 weight: 0 to 1 with up to three decimals. */
const WEIGHT = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
/** A language range: `*` or a primary subtag with optional subtags (`pt`, `pt-BR`, `zh-Hant-TW`). */
const RANGE = /^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/i;

/**
 * Our language the browser prefers most, matching on the primary subtag (`pt-BR` → pt). Malformed entries are
 * skipped; `q=0` means "not this one"; `*` stands for any language not named, which we serve as English.
 */
function fromAcceptLanguage(header: string): Language | undefined {
  const entries = header
    .split(',')
    .slice(0, 50)
    .flatMap((part, index) => {
      const [range = '', ...params] = part.split(';').map((item) => item.trim());
      if (!RANGE.test(range)) return [];
      const weight = params.find((param) => /^q=/i.test(param));
      if (weight !== undefined && !WEIGHT.test(weight)) return [];
      const primary = range.toLowerCase().split('-')[0]!;
      return [{ primary, q: weight === undefined ? 1 : Number(weight.slice(2)), index }];
    });
  const named = new Set(entries.map((entry) => entry.primary));
  const candidates = entries
    .map((entry) => ({
      ...entry,
      language: entry.primary === '*' && !named.has(FALLBACK_LANGUAGE) ? FALLBACK_LANGUAGE : entry.primary,
    }))
    .filter((entry): entry is typeof entry & { language: Language } => entry.q > 0 && isLanguage(entry.language));
  candidates.sort((a, b) => b.q - a.q || a.index - b.index);
  return candidates[0]?.language;
}
