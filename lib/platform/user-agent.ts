/**
 * A User-Agent header in the few words a session list needs ("Firefox on Windows"): the browser's family and the
 * system's, nothing more. Checked in the order that matters: Edge and Opera say "Chrome" too, Chrome says "Safari".
 */
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/curl\//, 'curl'],
];
const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const first = (table: ReadonlyArray<readonly [RegExp, string]>, userAgent: string): string | undefined =>
  table.find(([pattern]) => pattern.test(userAgent))?.[1];

/** The browser and system named, either missing when unknown (the page then shows its words for "unknown"). */
export function summariseUserAgent(userAgent: string): { browser?: string; system?: string } {
  const browser = first(BROWSERS, userAgent);
  const system = first(SYSTEMS, userAgent);
  return { ...(browser ? { browser } : {}), ...(system ? { system } : {}) };
}
