import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createAgeProvider, type AgeProviderOptions } from '../../lib/app/app.js';
import { knexAdapter } from '../../adapters/knex.js';
import { ConfigError } from '../../lib/config/settings.js';
import { testSecrets } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// The geo settings are checked at start-up: a bad value stops createAgeProvider with a ConfigError naming the variable.

describe('geo settings at start-up', () => {
  let database: TestDatabase;
  let folder: string;
  before(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'age-provider-geo-settings-'));
  });
  after(async () => {
    await database.drop();
    await rm(folder, { recursive: true, force: true });
  });

  const start = (options: AgeProviderOptions) =>
    createAgeProvider(
      { env: {}, logLevel: 'silent', dataDir: folder, ...testSecrets, db: database.db, ...options },
      knexAdapter,
    );

  async function startupError(options: AgeProviderOptions): Promise<ConfigError> {
    const provider = await start(options).catch((error: unknown) => error);
    if (!(provider instanceof ConfigError)) {
      if (provider && typeof provider === 'object' && 'close' in provider)
        await (provider as { close(): Promise<void> }).close();
      expect.fail(`expected a ConfigError, got ${String(provider)}`);
    }
    return provider;
  }

  it('names GEOIP_DATABASE when the file does not exist', async () => {
    const error = await startupError({ env: { GEOIP_DATABASE: join(folder, 'missing.mmdb') } });
    expect(error.message).to.contain('GEOIP_DATABASE').and.contain('missing.mmdb');
  });

  it('names GEOIP_DATABASE when the file is not a MaxMind database', async () => {
    const path = join(folder, 'not-a-database.mmdb');
    await writeFile(path, 'hello');
    const error = await startupError({ geo: { database: path } });
    expect(error.message).to.contain('GEOIP_DATABASE');
  });

  const badThresholds: Array<[string, string]> = [
    ['not JSON', '{"US-AL":'],
    ['not an object', '[19]'],
    ['a threshold under 13', '{"JP":12}'],
    ['a threshold over 25', '{"JP":26}'],
    ['a threshold that is not an integer', '{"JP":19.5}'],
    ['a threshold given as text', '{"JP":"20"}'],
    ['a lower-case region', '{"us-al":19}'],
    ['a region that does not exist', '{"QQ":19}'],
    ['a US state that does not exist', '{"US-XY":19}'],
  ];
  for (const [name, value] of badThresholds) {
    it(`names AGE_THRESHOLDS for ${name}`, async () => {
      const error = await startupError({ env: { AGE_THRESHOLDS: value } });
      expect(error.message).to.contain('AGE_THRESHOLDS');
    });
  }

  it('names GEO_SUBDIVISION_HEADER when it comes without a country header', async () => {
    const error = await startupError({ trustProxy: true, env: { GEO_SUBDIVISION_HEADER: 'X-Region' } });
    expect(error.message).to.contain('GEO_SUBDIVISION_HEADER');
  });

  it('names GEO_COUNTRY_HEADER when it is not a header name', async () => {
    const error = await startupError({ trustProxy: true, env: { GEO_COUNTRY_HEADER: 'Country Code:' } });
    expect(error.message).to.contain('GEO_COUNTRY_HEADER');
  });

  it('lets the geo option win over the environment', async () => {
    const provider = await start({ env: { AGE_THRESHOLDS: '{"JP":12}' }, geo: { ageThresholds: { JP: 20 } } });
    await provider.close();
  });

  it('warns that geo headers are ignored without TRUST_PROXY', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const provider = await start({ trustProxy: false, logger, env: { GEO_COUNTRY_HEADER: 'CF-IPCountry' } });
    await provider.close();
    expect(warnings.join('\n')).to.contain('GEO_COUNTRY_HEADER').and.contain('TRUST_PROXY');
  });
});
