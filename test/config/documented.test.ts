import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { retiredVariables } from '../../lib/config/retired.js';
import { challengeSections, SECTIONS, settingVariables } from '../../lib/app/sections.js';
import type { EnvSetting, SettingsSection } from '../../lib/config/settings.js';
import { packageRoot } from '../../lib/paths.js';
import { startTestApp } from '../helpers/app.js';

/** Every environment variable the service reads while it starts, recorded from the environment object it is given. */
async function variablesRead(): Promise<string[]> {
  const read = new Set<string>();
  const record = (key: string | symbol) => {
    if (typeof key === 'string') read.add(key);
  };
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_, key) => {
      record(key);
      return undefined;
    },
    has: (_, key) => {
      record(key);
      return false;
    },
  });
  const app = await startTestApp({ env });
  await app.close();
  return [...read].sort();
}

/** The rows of every table in README.md and docs/*.md. */
const tableRows = (): string[] =>
  [
    join(packageRoot, 'README.md'),
    ...readdirSync(join(packageRoot, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(packageRoot, 'docs', file)),
  ]
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|'));

/** A federated provider's variables are documented once, as `<NAME>_SUFFIX` (docs/challenges-federated.md). */
const FEDERATED = /^(ANONYMAGE|PLEENK|PAYPAL|AGEGO|AGEKEY)_(.+)$/;
const documentedAs = (name: string): string[] => {
  const federated = FEDERATED.exec(name);
  return federated ? [`\`${name}\``, `\`<NAME>_${federated[2]}\``] : [`\`${name}\``];
};

/** A cell naming settings and nothing else: `A`, `A` / `B`, `A` + `B`… */
const namesOf = (cell: string): string[] => {
  const names = cell.match(/`[^`]+`/g) ?? [];
  return cell.replace(/`[^`]+`/g, '').replace(/[\s,+/]|\band\b/g, '') === '' ? names : [];
};

/** Every setting of every section (lib/app/sections.ts). */
const settings = (): EnvSetting[] =>
  [...Object.values(SECTIONS), ...challengeSections().map(([, section]) => section)].flatMap(
    (section: SettingsSection<unknown, unknown>) =>
      Object.values<EnvSetting>(section.spec as Record<string, EnvSetting>),
  );

describe('configuration: one registry, documented', () => {
  it('is the only reader of the environment: every variable read at start-up belongs to a section, or is a retired one it names', async function () {
    this.timeout(60_000);
    const registered = new Set([...settingVariables(), ...retiredVariables()]);
    expect((await variablesRead()).filter((name) => !registered.has(name))).to.deep.equal([]);
  });

  it('has a row in a table of README.md or docs/ for each variable of each section, stating its default (a variable added to a spec and not to the docs fails here)', () => {
    const rows = tableRows();
    const problems = settings().flatMap((setting) => {
      const row = rows.find((line) =>
        line.split('|').some((cell) => namesOf(cell).some((name) => documentedAs(setting.env).includes(name))),
      );
      if (!row) return [`${setting.env}: no table row`];
      if (setting.default === undefined || typeof setting.default === 'object') return [];
      const stated = String(setting.default);
      return row.includes(`\`${stated}\``) || row.includes(`| ${stated} `)
        ? []
        : [`${setting.env}: the row does not state the default ${stated}`];
    });
    expect([...new Set(problems)]).to.deep.equal([]);
  });
});
