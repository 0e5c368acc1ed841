import { placeNames } from '../geo/display-names.js';
import type { Language } from '../i18n/languages.js';
import { EVERYWHERE, type RuleOrigin } from '../policy/rule.js';
import type { WebsitePolicy } from '../websites/index.js';

/** Why a region's rule is what it is: a preset in force (by title, id and version) or one of the website's rules (numbered from 1). */
type Reason = { kind: 'preset'; title: string; id: string; version: string } | { kind: 'website'; number: number };

/** One row of a website's policy table: where, what applies there, and why. */
export interface PolicyRow {
  region: string;
  /** the region's name in the page's language; null for `*` (the page says it in words) */
  name: string | null;
  rule: WebsitePolicy['effective'][string];
  reasons: Reason[];
}

function reasonOf(origin: RuleOrigin, policy: WebsitePolicy): Reason {
  if (origin.kind === 'website') return { kind: 'website', number: origin.rule + 1 };
  const preset = policy.presets.find((candidate) => candidate.id === origin.preset);
  return { kind: 'preset', title: preset?.title ?? origin.preset, id: origin.preset, version: origin.version };
}

function regionName(region: string, language: Language): string | null {
  if (region === EVERYWHERE) return null;
  const names = placeNames(region.slice(0, 2), region.length > 2 ? region : null, language);
  return names.subdivision ? `${names.country ?? region}, ${names.subdivision}` : names.country;
}

/** The policy's effective rules as the platform's table shows them, one row per region, `*` first. */
export function policyRows(policy: WebsitePolicy, language: Language): PolicyRow[] {
  return Object.entries(policy.effective).map(([region, rule]) => ({
    region,
    name: regionName(region, language),
    rule,
    // One reason per preset or rule, even when a preset's rules name the region twice.
    reasons: rule.origins
      .map((origin) => reasonOf(origin, policy))
      .filter(
        (reason, index, all) => all.findIndex((other) => JSON.stringify(other) === JSON.stringify(reason)) === index,
      ),
  }));
}
