import { listField, textField } from '../http/form.js';
import type { Translate } from '../i18n/catalogue.js';
import { MAX_RULES } from '../policy/schema.js';
import type { PolicyRule } from '../policy/rule.js';
import type { PolicyProblem } from '../websites/index.js';

/**
 * The policy editor as a form (docs/policies.md "A website's own rules"): one fieldset per rule, as typed. It turns
 * the fields into rules and nothing more; the service checks them exactly as it checks the API's and the JSON
 * editor's, and this module words its problems per field in the webmaster's language.
 */

/** The fields of one rule in the form, as the webmaster typed them. */
export interface FormRule {
  regions: string;
  required: boolean;
  ageThreshold: string;
  challenges: string[];
  minimumAssuranceLevel: string;
  estimationBuffer: string;
  reuseMaxAgeSeconds: string;
  requireDoubleAnonymity: boolean;
  /** `credit_card 2025-01-09, ticket 2026-12-31` */
  challengesUntil: string;
  remove: boolean;
}

const BLANK: FormRule = {
  regions: '',
  required: false,
  ageThreshold: '',
  challenges: [],
  minimumAssuranceLevel: '',
  estimationBuffer: '',
  reuseMaxAgeSeconds: '',
  requireDoubleAnonymity: false,
  challengesUntil: '',
  remove: false,
};

const text = (value: number | undefined): string => (value === undefined ? '' : String(value));

/** The stored rules as the form shows them, and a blank one to add (while there is room for one). */
export function formRulesOf(rules: readonly PolicyRule[]): FormRule[] {
  const shown = rules.map((rule) => ({
    ...BLANK,
    regions: rule.regions.join(', '),
    required: rule.required === true,
    ageThreshold: text(rule.ageThreshold),
    challenges: [...(rule.challenges ?? [])],
    minimumAssuranceLevel: rule.minimumAssuranceLevel ?? '',
    estimationBuffer: text(rule.estimationBuffer),
    reuseMaxAgeSeconds: text(rule.reuseMaxAgeSeconds),
    requireDoubleAnonymity: rule.requireDoubleAnonymity === true,
    challengesUntil: Object.entries(rule.challengesUntil ?? {})
      .map(([name, date]) => `${name} ${date}`)
      .join(', '),
  }));
  return shown.length < MAX_RULES ? [...shown, { ...BLANK }] : shown;
}

/** The form's rules as posted: `rule-<n>-<field>`, from 0 while the next one is there (one more than MAX_RULES at most). */
export function formRulesFromBody(body: unknown): FormRule[] {
  const rules: FormRule[] = [];
  const present = (slot: number) =>
    typeof (body as Record<string, unknown> | undefined)?.[`rule-${slot}-regions`] === 'string';
  for (let slot = 0; slot <= MAX_RULES && present(slot); slot++) {
    const field = (name: string) => textField(body, `rule-${slot}-${name}`).trim();
    rules.push({
      regions: field('regions'),
      required: field('required') === 'true',
      ageThreshold: field('ageThreshold'),
      challenges: listField(body, `rule-${slot}-challenges`),
      minimumAssuranceLevel: field('minimumAssuranceLevel'),
      estimationBuffer: field('estimationBuffer'),
      reuseMaxAgeSeconds: field('reuseMaxAgeSeconds'),
      requireDoubleAnonymity: field('requireDoubleAnonymity') === 'true',
      challengesUntil: field('challengesUntil'),
      remove: field('remove') === 'true',
    });
  }
  return rules;
}

const isBlank = (rule: FormRule): boolean => JSON.stringify({ ...rule, remove: false }) === JSON.stringify(BLANK);

/** A whole number as a number; anything else as typed, for the schema to refuse with the field's own sentence. */
const numberOf = (value: string): number | string => (/^\d{1,9}$/.test(value) ? Number(value) : value);

/** `credit_card 2025-01-09, ticket: 2026-12-31` → each challenge's date; a piece that is not a pair stays as typed, for the schema to refuse. */
function datesOf(value: string): Record<string, string> {
  const dates: Record<string, string> = {};
  for (const piece of value.split(/[,;\n]+/).map((part) => part.trim())) {
    if (piece === '') continue;
    const pair = /^([^\s:=]+)\s*[:=\s]\s*(\S+)$/.exec(piece);
    if (pair) dates[pair[1]!] = pair[2]!;
    else dates[piece] = '';
  }
  return dates;
}

/**
 * The rules the form asks for, in the shape of the API's body (an absent field demands nothing), and which slot of
 * the form each comes from (to link a problem to its fields): removed and blank rules are left out.
 */
export function rulesOfForm(form: readonly FormRule[]): { rules: unknown[]; slots: number[] } {
  const rules: unknown[] = [];
  const slots: number[] = [];
  form.forEach((rule, slot) => {
    if (rule.remove || isBlank(rule)) return;
    const dates = datesOf(rule.challengesUntil);
    rules.push({
      regions: rule.regions
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map((region) => region.toUpperCase()),
      ...(rule.required ? { required: true } : {}),
      ...(rule.ageThreshold ? { ageThreshold: numberOf(rule.ageThreshold) } : {}),
      ...(rule.challenges.length ? { challenges: rule.challenges } : {}),
      ...(rule.minimumAssuranceLevel ? { minimumAssuranceLevel: rule.minimumAssuranceLevel } : {}),
      ...(rule.estimationBuffer ? { estimationBuffer: numberOf(rule.estimationBuffer) } : {}),
      ...(rule.reuseMaxAgeSeconds ? { reuseMaxAgeSeconds: numberOf(rule.reuseMaxAgeSeconds) } : {}),
      ...(rule.requireDoubleAnonymity ? { requireDoubleAnonymity: true } : {}),
      ...(Object.keys(dates).length ? { challengesUntil: dates } : {}),
    });
    slots.push(slot);
  });
  return { rules, slots };
}

/**
 * The fields a problem can name, in the order the form shows them, each with its own sentence in every language
 * (platform.policy.form.error.<field>).
 */
const FIELDS = [
  'regions',
  'ageThreshold',
  'challenges',
  'minimumAssuranceLevel',
  'estimationBuffer',
  'reuseMaxAgeSeconds',
  'challengesUntil',
];

/** Where an error's field is on the page: the summary lists them in that order. */
const positionOf = (id: string): number => {
  const [, slot, field] = /^rule-(\d+)-(\w+)$/.exec(id) ?? [];
  return slot === undefined ? -1 : Number(slot) * FIELDS.length + FIELDS.indexOf(field!);
};

/** One problem of the form: the field's id (the summary links to it) and what to do, in the webmaster's language. */
export interface FormError {
  id: string;
  message: string;
}

/**
 * The service's problems as the form's errors, one per field (the first problem of a field words it): a problem of
 * a rule's field links to that field; a rule that loosens or changes nothing, to its regions.
 */
export function formErrorsOf(problems: readonly PolicyProblem[], slots: readonly number[], t: Translate): FormError[] {
  const errors = new Map<string, string>();
  for (const problem of problems) {
    const slot = problem.rule === null ? undefined : slots[problem.rule];
    if (slot === undefined) {
      errors.set('policy-form', t('platform.policy.form.error.body'));
      continue;
    }
    const rule = slot + 1;
    if (problem.kind === 'idle') {
      errors.set(`rule-${slot}-regions`, t('platform.policy.error.idle', { rule }));
    } else if (problem.kind === 'loosens') {
      const field = problem.field.split('.')[0]!;
      const id = `rule-${slot}-${field === 'required' || field === 'requireDoubleAnonymity' ? 'regions' : field}`;
      if (!errors.has(id))
        errors.set(
          id,
          t('platform.policy.form.error.loosens', {
            rule,
            field: t(`platform.policy.form.${field}`),
            region: problem.region,
          }),
        );
    } else {
      const field = problem.field !== null && FIELDS.includes(problem.field) ? problem.field : 'regions';
      const id = `rule-${slot}-${field}`;
      if (!errors.has(id)) errors.set(id, t(`platform.policy.form.error.${field}`, { rule }));
    }
  }
  return [...errors].map(([id, message]) => ({ id, message })).sort((a, b) => positionOf(a.id) - positionOf(b.id));
}
