import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../../lib/paths.js';

/**
 * The architecture's arrows, checked instead of remembered (docs/architecture.md "Layers" and "Import rules"): every
 * folder and loose file of lib is in one layer, and the arrows that must never exist do not.
 */

const LAYERS = {
  /** facts with no dependency: time, paths, the domain's refusal, what a change is */
  kernel: ['changes.ts', 'clock.ts', 'paths.ts', 'refusal.ts', 'time-limit.ts'],
  /** what every surface and domain runs on */
  infrastructure: [
    'store',
    'config',
    'security',
    'i18n',
    'http',
    'mail',
    'branding',
    'log.ts',
    'log-repeats.ts',
    'periodic.ts',
  ],
  /** the rules of the service, whoever calls them */
  domain: [
    'websites',
    'policy',
    'webmasters',
    'visitors',
    'verification',
    'geo',
    'webhooks',
    'audit',
    'statistics',
    'evidence',
  ],
  /** what answers a caller: each has its error shape (lib/app/surfaces.ts) */
  surfaces: ['external', 'platform', 'requirement', 'checker', 'oauth2'],
  /** where the service is assembled and started */
  composition: ['app', 'index.ts', 'cli'],
} as const;
const SURFACES: readonly string[] = LAYERS.surfaces;
const DOMAINS: readonly string[] = LAYERS.domain;
const INFRASTRUCTURE: readonly string[] = [...LAYERS.kernel, ...LAYERS.infrastructure];
/**
 * The plugin contract's two seams into the interaction pages, and nothing else: a challenge names its step URLs
 * (paths.ts) and an endpoint of its own reads or swaps its stored state (progress.ts).
 */
const ALLOWED_DOMAIN_TO_SURFACE = new Set(['oauth2/interactions/paths.ts', 'oauth2/interactions/progress.ts']);
/**
 * A challenge's own endpoints (the plugin contract lets a challenge declare routes) answer HTTP themselves: a wallet's
 * response, a federated callback, a selfie's upload. The rest of the domain names its refusals (lib/refusal.ts).
 */
const CHALLENGE_ENDPOINTS = new Set([
  'lib/verification/challenges/eu-av/response-route.ts',
  'lib/verification/challenges/federated/callback-route.ts',
  'lib/verification/challenges/selfie/upload.ts',
]);

/** The modules that issue SQL: each owns its tables; everything else asks them. */
const SQL_OWNERS = new Set([
  'adapters/knex.ts',
  'lib/audit/trail.ts',
  'lib/http/health.ts',
  'lib/oauth2/flow-storage.ts',
  'lib/oauth2/interactions/progress.ts',
  'lib/platform/once.ts',
  'lib/platform/sessions.ts',
  'lib/statistics/store.ts',
  'lib/store/database.ts',
  'lib/store/insert-where.ts',
  'lib/store/migrate.ts',
  'lib/store/oidc-payloads.ts',
  'lib/store/retention.ts',
  'lib/store/retry.ts',
  'lib/verification/challenges/eu-av/trust-record.ts',
  'lib/verification/challenges/ticket/codes.ts',
  'lib/verification/flow-endings.ts',
  'lib/verification/listing.ts',
  'lib/verification/proofs.ts',
  'lib/verification/verifications.ts',
  'lib/visitors/passkey-ceremonies.ts',
  'lib/visitors/passkeys.ts',
  'lib/visitors/visitor-accounts.ts',
  'lib/webhooks/disabling.ts',
  'lib/webhooks/endpoints.ts',
  'lib/webhooks/events.ts',
  'lib/webhooks/inspection.ts',
  'lib/webhooks/maintenance.ts',
  'lib/webhooks/outbox.ts',
  'lib/webmasters/accounts.ts',
  'lib/webmasters/api-tokens.ts',
  'lib/webmasters/invitations.ts',
  'lib/webmasters/members.ts',
  'lib/webmasters/passkeys.ts',
  'lib/webmasters/password-links.ts',
  'lib/webmasters/second-factors.ts',
  'lib/webmasters/sign-in-codes.ts',
  'lib/websites/clients.ts',
  'lib/websites/domain-verification.ts',
  'lib/websites/keys.ts',
  'lib/websites/oauth2.ts',
  'lib/websites/ownership.ts',
  'lib/websites/policy.ts',
  'lib/websites/websites.ts',
]);

const files = (folder: string): string[] =>
  readdirSync(join(packageRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(packageRoot, join(entry.parentPath, entry.name)));

/** The composition's own folder: what assembles the service; nothing below it imports it. */
const COMPOSITION = 'app';

/** Every relative import of a file, resolved to a path relative to the package (a .js specifier names its .ts source). */
function importsOf(file: string): string[] {
  const source = readFileSync(join(packageRoot, file), 'utf8');
  return [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    relative(packageRoot, join(packageRoot, file, '..', specifier!)).replace(/\.js$/, '.ts'),
  );
}

/** The layer entry (folder or loose file of lib) a package path belongs to, or undefined outside lib. */
const entryOf = (path: string): string | undefined => (path.startsWith('lib/') ? path.split('/')[1] : undefined);

/** `from` → `to` for every import of the files of `entries` that lands in `targets` (entries of lib, or folders of the package). */
function arrows(
  entries: readonly string[],
  landsIn: (target: string) => boolean,
  except: (file: string, target: string) => boolean = () => false,
): string[] {
  const sources = entries.flatMap((entry) => (entry.endsWith('.ts') ? [`lib/${entry}`] : files(`lib/${entry}`)));
  return sources.flatMap((file) =>
    importsOf(file)
      .filter((target) => landsIn(target) && !except(file, target))
      .map((target) => `${file} → ${target}`),
  );
}

/**
 * The strongly connected files of an import graph with more than one file (Tarjan's algorithm): each is a set of
 * files that reach one another through their imports.
 */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** The layer table of docs/architecture.md ("Layers"): each layer's folders and loose files of lib, as the docs name them. */
function documentedLayers(): Record<string, string[]> {
  const doc = readFileSync(join(packageRoot, 'docs/architecture.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| (\w+) \| ([^|]+) \|/gm)].filter(([, layer]) => layer! in LAYERS);
  return Object.fromEntries(
    rows.map(([, layer, cell]) => [
      layer,
      [...cell!.matchAll(/`([^`]+)`/g)].map(([, entry]) => entry!.replace(/\/$/, '')).sort(),
    ]),
  );
}

/** Calls that reach the database: a query builder on a table, a raw statement, a transaction. */
const ISSUES_SQL = /\b(?:db|trx)(?:<[^>]*>)?\(|\.raw(?:<[^>]*>)?\(|\.transaction\(/;

describe('architecture: the import graph', () => {
  it('puts every folder and loose file of lib in exactly one layer', () => {
    const entries = readdirSync(join(packageRoot, 'lib'))
      .filter((entry) => !entry.endsWith('.d.ts'))
      .sort();
    const classified = Object.values(LAYERS).flat();
    expect([...classified].sort(), 'each entry once, and only entries that exist').to.deep.equal(entries);
  });

  it('no domain folder imports a surface folder (beyond the two seams of the challenge contract)', () => {
    const violations = arrows(
      DOMAINS,
      (target) => SURFACES.includes(entryOf(target) ?? ''),
      (_file, target) => ALLOWED_DOMAIN_TO_SURFACE.has(target.slice('lib/'.length)),
    );
    expect(violations).to.deep.equal([]);
  });

  it("the domain names its refusals instead of throwing HTTP errors (beyond a challenge's own endpoints)", () => {
    const violations = arrows(
      DOMAINS,
      (target) => target === 'lib/http/errors.ts',
      (file) => CHALLENGE_ENDPOINTS.has(file),
    );
    expect(violations).to.deep.equal([]);
  });

  it('infrastructure imports no surface and no composition module', () => {
    const upward = new Set<string>([...SURFACES, ...LAYERS.composition]);
    expect(arrows(INFRASTRUCTURE, (target) => upward.has(entryOf(target) ?? ''))).to.deep.equal([]);
    const adapters = files('adapters').flatMap((file) =>
      importsOf(file)
        .filter((target) => upward.has(entryOf(target) ?? ''))
        .map((target) => `${file} → ${target}`),
    );
    expect(adapters, 'adapters/ implement infrastructure').to.deep.equal([]);
  });

  it('nothing below lib/app/ imports it (only the entry points, index.ts and cli/, stand above it)', () => {
    const below = Object.values(LAYERS)
      .flat()
      .filter((entry) => !(LAYERS.composition as readonly string[]).includes(entry));
    expect(arrows(below, (target) => entryOf(target) === COMPOSITION)).to.deep.equal([]);
    const adapters = files('adapters').flatMap((file) =>
      importsOf(file)
        .filter((target) => entryOf(target) === COMPOSITION)
        .map((target) => `${file} → ${target}`),
    );
    expect(adapters).to.deep.equal([]);
  });

  it('infrastructure imports no domain', () => {
    expect(arrows(INFRASTRUCTURE, (target) => DOMAINS.includes(entryOf(target) ?? ''))).to.deep.equal([]);
  });

  it('no import cycle is longer than two files, type-only imports included', () => {
    const sources = [...files('lib'), ...files('adapters')];
    const longer = cyclesOf(
      new Map(sources.map((file) => [file, importsOf(file).filter((target) => sources.includes(target))])),
    ).filter((cycle) => cycle.length > 2);
    expect(longer, 'files that import each other in a loop of more than two').to.deep.equal([]);
  });

  it('docs/architecture.md states the layers as they are checked here', () => {
    expect(documentedLayers()).to.deep.equal(
      Object.fromEntries(Object.entries(LAYERS).map(([layer, entries]) => [layer, [...entries].sort()])),
    );
  });

  it('lib imports nothing from adapters/ (the caller plugs the storage in)', () => {
    expect(arrows(Object.values(LAYERS).flat(), (target) => target.startsWith('adapters/'))).to.deep.equal([]);
  });

  it('only the modules that own tables issue SQL', () => {
    const issuing = [...files('lib'), ...files('adapters')].filter((file) =>
      ISSUES_SQL.test(readFileSync(join(packageRoot, file), 'utf8')),
    );
    expect(
      issuing.filter((file) => !SQL_OWNERS.has(file)),
      'SQL outside its owners',
    ).to.deep.equal([]);
    expect(
      [...SQL_OWNERS].filter((file) => !issuing.includes(file)),
      'listed owners that issue no SQL (remove them)',
    ).to.deep.equal([]);
  });
});
