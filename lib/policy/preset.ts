import type { PolicyRule, RuleSet } from './rule.js';

/** Where a preset rule comes from: a law, a regulator's text, or a second-hand report of one. */
export interface Source {
  title: string;
  url: string;
  /** the date of the text (adoption, publication or entry into force, as the title says) */
  date: string;
  /** the research note it was taken from (/docs/policies.md lists them), absent when it is not in the notes */
  ref?: string;
  /** a report of the text rather than the text itself, or a point we could not check against the text */
  unverified?: boolean;
}

/** A rule of a preset: what it demands, where, and on what authority. */
export interface PresetRule extends PolicyRule {
  sources: Source[];
  /** why the rule says what it says, and where we had to interpret */
  note: string;
}

/** A versioned set of rules an operator may put in force for every website (POLICY_PRESETS, docs/policies.md). */
export interface Preset extends RuleSet {
  title: string;
  /** the day this version was written; a changed rule is a new version */
  date: string;
  rules: readonly PresetRule[];
}
