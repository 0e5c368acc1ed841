import { locationOfRegion, loosenedField } from '../policy/effective.js';
import { operatorFloor, regionsNamed, websiteRule, type WebsitePolicyInputs } from '../policy/resolve.js';
import type { EffectiveRule, PolicyRule } from '../policy/rule.js';
import { idleRules } from '../policy/idle.js';
import { policyUpdateSchema } from '../policy/schema.js';
import { Refusal } from '../refusal.js';
import type { WebsiteServices } from './services.js';
import { checkWebsiteId, deniedAccess } from './ownership.js';
import { retriedTransaction } from '../store/retry.js';
import { problemsOf } from './validation.js';
import type { ChangeOrigin } from '../changes.js';

/** A website's policy as the External API and the platform show it (docs/policies.md). */
export interface WebsitePolicy {
  /** the website's own rules */
  rules: PolicyRule[];
  /** the presets the operator put in force, for every website */
  presets: Array<{ id: string; version: string; title: string }>;
  /** the rule in force in each region named anywhere (the website's regions and rules, the presets, the operator's ages), `*` first */
  effective: Record<string, EffectiveRule>;
}

export interface WebsitePolicyInput {
  rules: PolicyRule[];
}

interface PolicyRow {
  regions: string[];
  policy_rules: PolicyRule[];
}

const inputsOf = (row: PolicyRow): WebsitePolicyInputs => ({ regions: row.regions, policyRules: row.policy_rules });

function describePolicy(runtime: WebsiteServices, row: PolicyRow): WebsitePolicy {
  const website = inputsOf(row);
  const effective: Record<string, EffectiveRule> = {};
  for (const region of regionsNamed(runtime, website)) {
    effective[region] = websiteRule(runtime, website, locationOfRegion(region));
  }
  return {
    rules: row.policy_rules,
    presets: runtime.config.policies.presets.map(({ id, version, title }) => ({ id, version, title })),
    effective,
  };
}

/** What the operator's rule demands of a field, in the words of a 400. */
function floorOf(field: string, floor: EffectiveRule): string {
  const [name, challenge] = field.split('.');
  switch (name) {
    case 'required':
      return 'verification is required there';
    case 'ageThreshold':
      return `the age is at least ${floor.ageThreshold}`;
    case 'challenges':
      return `only ${(floor.challenges ?? []).join(', ')} are allowed`;
    case 'minimumAssuranceLevel':
      return `the level is at least ${floor.minimumAssuranceLevel}`;
    case 'estimationBuffer':
      return `the estimation buffer is at least ${floor.estimationBuffer}`;
    case 'reuseMaxAgeSeconds':
      return `a reused result is at most ${String(floor.reuseMaxAgeSeconds)} seconds old`;
    case 'requireDoubleAnonymity':
      return 'a double-anonymity method is required';
    default:
      return `${String(challenge)} is allowed until ${String(floor.challengesUntil[challenge as keyof EffectiveRule['challengesUntil']])}`;
  }
}

/**
 * One reason a website's rules are refused, with where it is (the rule's index, the field) so the platform can word it
 * in the webmaster's language and link to the field; `message` is the External API's sentence.
 */
export type PolicyProblem =
  | { kind: 'schema'; rule: number | null; field: string | null; message: string }
  | { kind: 'loosens'; rule: number; field: string; region: string; message: string }
  | { kind: 'idle'; rule: number; message: string };

/** Rules refused: the API answers the first problem's sentence, the platform lists every one. */
export class PolicyRefusal extends Refusal {
  constructor(readonly problems: PolicyProblem[]) {
    super('invalid', problems[0]!.message);
  }
}

const everyProblem = problemsOf(policyUpdateSchema, 'body');

/** `/rules/2/challengesUntil/ticket` → rule 2, field challengesUntil. */
function placeOf(path: string): { rule: number | null; field: string | null } {
  const [, rules, index, field] = path.split('/');
  if (rules !== 'rules' || index === undefined) return { rule: null, field: null };
  return { rule: Number(index), field: field ?? null };
}

/** Each rule's first field and region that would loosen the operator's rule there. */
function looseningsOf(
  runtime: WebsiteServices,
  rules: ReadonlyArray<{ rule: PolicyRule; index: number }>,
): PolicyProblem[] {
  return rules.flatMap(({ rule, index }) => {
    for (const region of rule.regions) {
      const floor = operatorFloor(runtime, region);
      const field = loosenedField(rule, floor);
      if (field) {
        const where = region === '*' ? 'every region' : region;
        return [
          {
            kind: 'loosens' as const,
            rule: index,
            field,
            region,
            message: `Invalid rules[${index}].${field}. In ${where} the operator's rule says ${floorOf(field, floor)}; a website's rules may only tighten it.`,
          },
        ];
      }
    }
    return [];
  });
}

/**
 * Every problem of a website's rules: each field the schema refuses, and among the rules it accepts, each that would
 * loosen the operator's (docs/policies.md) and each that would change nothing (lib/policy/idle.ts). A body that is
 * not a list of rules at all is not checked further.
 */
function policyProblems(runtime: WebsiteServices, input: unknown): PolicyProblem[] {
  const invalid: PolicyProblem[] = everyProblem(input).map(({ path, message }) => ({
    kind: 'schema',
    ...placeOf(path),
    message,
  }));
  const refusedRules = new Set(invalid.map((problem) => problem.rule));
  const rules = (input as { rules?: unknown } | null)?.rules;
  if (refusedRules.has(null) || !Array.isArray(rules)) return invalid;
  const accepted = (rules as PolicyRule[]).flatMap((rule, index) => (refusedRules.has(index) ? [] : [{ rule, index }]));
  const acceptedRules = accepted.map(({ rule }) => rule);
  const found: PolicyProblem[] = [
    ...invalid,
    ...looseningsOf(runtime, accepted),
    ...idleRules(acceptedRules).map((position) => {
      const index = accepted[position]!.index;
      return {
        kind: 'idle' as const,
        rule: index,
        message: `Invalid rules[${index}]: it demands nothing (required: false never lifts a requirement set by the operator or the website's regions) and sets aside none of the website's broader rules, so it would change nothing. Add a demand or remove it.`,
      };
    }),
  ];
  return found.sort((a, b) => (a.rule ?? -1) - (b.rule ?? -1));
}

/** GET /external/website/{website_id}/policy. Another webmaster's website is 401, a missing one 404. */
export async function getWebsitePolicy(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
): Promise<WebsitePolicy> {
  checkWebsiteId(websiteId);
  const row = await runtime
    .db('websites')
    .where({ id: websiteId, webmaster_id: webmasterId })
    .first<PolicyRow | undefined>('regions', 'policy_rules');
  if (!row) return deniedAccess(runtime.db, webmasterId, websiteId);
  return describePolicy(runtime, row);
}

/**
 * PUT /external/website/{website_id}/policy: replaces the website's own rules, recorded in the audit trail and announced
 * as `website.updated` in the same transaction. Nothing is stored when the body is invalid or a rule would loosen the
 * operator's.
 */
export async function updateWebsitePolicy(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  input: WebsitePolicyInput,
  origin: ChangeOrigin,
): Promise<WebsitePolicy> {
  const problems = policyProblems(runtime, input);
  if (problems.length > 0) throw new PolicyRefusal(problems);
  const body = input;
  checkWebsiteId(websiteId);
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    // The website's row first: every change's lock order (FOR NO KEY UPDATE lets verifications be recorded meanwhile).
    const previous = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .forNoKeyUpdate()
      .first<PolicyRow | undefined>('regions', 'policy_rules');
    if (!previous) return deniedAccess(trx, webmasterId, websiteId);
    const [row] = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .update({ policy_rules: JSON.stringify(body.rules), updated_at: now })
      .returning<PolicyRow[]>(['regions', 'policy_rules']);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'policy.updated',
      before: { rules: previous.policy_rules },
      after: { rules: row!.policy_rules },
    });
    return describePolicy(runtime, row!);
  });
}

/** A website's identity and its own rules, as an evidence pack states them (lib/evidence). */
export interface WebsiteRules {
  id: number;
  name: string;
  domain: string;
  regions: string[];
  challenges: string[];
  policyRules: PolicyRule[];
}

/**
 * A website's identity and own rules: the account's own (`webmasterId` in the query), or any website for the
 * operator (`webmasterId` null). Undefined when there is none.
 */
export async function websiteRules(
  db: WebsiteServices['db'],
  websiteId: number,
  webmasterId: number | null,
): Promise<WebsiteRules | undefined> {
  const row = await db('websites')
    .where({ id: websiteId, ...(webmasterId === null ? {} : { webmaster_id: webmasterId }) })
    .first<(PolicyRow & { id: number; name: string; domain: string; challenges: string[] }) | undefined>(
      'id',
      'name',
      'domain',
      'regions',
      'challenges',
      'policy_rules',
    );
  return (
    row && {
      id: Number(row.id),
      name: row.name,
      domain: row.domain,
      regions: row.regions,
      challenges: row.challenges,
      policyRules: row.policy_rules,
    }
  );
}
