import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The documentation's text: README and docs/*.md. */
const documentation = (): string =>
  [join(packageRoot, 'README.md'), ...readdirSync(join(packageRoot, 'docs')).filter((file) => file.endsWith('.md')).map((file) => join(packageRoot, 'docs', file))]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');

/** A federated provider's variables are documented once, as `<NAME>_SUFFIX` (docs/challenges-federated.md). */
const FEDERATED = /^(ANONYMAGE|PLEENK|PAYPAL|AGEGO|AGEKEY)_(.+)$/;

describe('configuration: every variable the service reads is documented', () => {
  it('names each one in README.md or docs/ (a variable added to a spec and not to the docs fails here)', async function () {
    this.timeout(60_000);
    const docs = documentation();
    const undocumented = (await variablesRead()).filter((name) => {
      if (docs.includes(`\`${name}\``)) return false;
      const federated = FEDERATED.exec(name);
      return !(federated && docs.includes(`\`<NAME>_${federated[2]}\``));
    });
    expect(undocumented).to.deep.equal([]);
  });
});
