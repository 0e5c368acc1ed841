/**
 * The one form of an identifier that is both a rate-limit key and a lookup (a webmaster's email, a visitor's
 * username): spaces around it dropped, Unicode NFKC, then full case folding. One function for both uses, so no
 * spelling of an account (`İ` for `i`, a fullwidth `Ａ`, `ß` for `ss`) gets a fresh limiter bucket while the
 * database still finds the same account.
 *
 * JavaScript has no case-folding primitive. Per code point, lower → upper → lower gives the full (C+F) folding of
 * the Unicode CaseFolding table for every letter that has one (`ß`/`ẞ` → `ss`, `ς` → `σ`, `İ` → `i̇`), except the
 * dotless `ı`, which upper-casing would merge with `i` while folding keeps it apart. Per code point, so the
 * context-dependent final-sigma rule of toLowerCase never applies. NFKC again at the end, since folding can leave
 * a sequence that is no longer normalised.
 */
export function normalizeIdentifier(identifier: string): string {
  const folded = Array.from(identifier.trim().normalize('NFKC'), foldCodePoint).join('');
  return folded.normalize('NFKC');
}

const DOTLESS_I = '\u0131';

const foldCodePoint = (character: string): string =>
  character === DOTLESS_I ? character : character.toLowerCase().toUpperCase().toLowerCase();
