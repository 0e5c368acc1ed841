import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../lib/app/config.js';
import { ConfigError } from '../../lib/config/settings.js';

describe('configuration', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-config-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('has the documented defaults', async () => {
    const { config } = await loadConfig({}, { DATA_DIR: dataDir });
    expect(config).to.include({
      port: 3000,
      host: '127.0.0.1',
      issuer: 'http://127.0.0.1:3000',
      trustProxy: false,
      verificationTtl: 3600,
      ageThreshold: 18,
    });
    expect(config.databaseUrl).to.equal(undefined);
  });

  it('reads environment variables with types, and options win over them', async () => {
    const { config } = await loadConfig(
      { host: '0.0.0.0' },
      { DATA_DIR: dataDir, PORT: '8080', TRUST_PROXY: 'true', HOST: '127.0.0.2', ISSUER: 'https://age.example/' },
    );
    expect(config).to.include({ port: 8080, trustProxy: true, host: '0.0.0.0', issuer: 'https://age.example' });
  });

  it('names a retired setting still set, and what replaced it, instead of dropping it without a word', async () => {
    const { config, warnings } = await loadConfig({}, { DATA_DIR: dataDir, EU_AV_WALLET_SCHEME: 'openid4vp' });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('EU_AV_WALLET_SCHEME is no longer read').and.contain('EU_AV_WALLET_SCHEMES');
    expect(config.port).to.equal(3000);
    expect((await loadConfig({}, { DATA_DIR: dataDir })).warnings).to.deep.equal([]);
  });

  it('names the bad key and refuses to start', async () => {
    for (const [env, key] of [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
      [{ JWKS: '{' }, 'JWKS'],
      [{ SEALING_KEY: 'short' }, 'SEALING_KEY'],
    ] as const) {
      try {
        await loadConfig({}, { DATA_DIR: dataDir, ...env });
        expect.fail(`accepted ${key}`);
      } catch (error) {
        expect(error).to.be.instanceOf(ConfigError);
        expect((error as Error).message).to.contain(key);
      }
    }
  });

  it('reports every bad value of every section in one pass, before anything starts', async () => {
    const env = {
      DATA_DIR: dataDir,
      PORT: 'eighty',
      BRAND_COLOR: 'blue',
      AGE_THRESHOLDS: '{"JP":99}',
      CHECKER_RATE_LIMIT_PER_IP: 'lots',
      STRIPE_SECRET_KEY: 'sk_test_1',
      PLEENK_ISSUER: 'https://pleenk.example',
    };
    const error = await loadConfig({}, env).then(
      () => expect.fail('started'),
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.have.members([
      'PORT must be integer',
      'BRAND_COLOR must be a colour like #004db3',
      'AGE_THRESHOLDS (JP) must be <= 25',
      'CHECKER_RATE_LIMIT_PER_IP must be requests per minute, an integer from 1 to 1000000',
      'STRIPE_PUBLISHABLE_KEY is required',
      'PLEENK_CLIENT_ID is required',
    ]);
  });

  it('generates the secrets once into DATA_DIR (mode 600) and reuses them', async () => {
    const first = await loadConfig({}, { DATA_DIR: dataDir });
    const second = await loadConfig({}, { DATA_DIR: dataDir });
    expect(second.config.cookieKeys).to.deep.equal(first.config.cookieKeys);
    expect(second.config.sealingKey.equals(first.config.sealingKey)).to.equal(true);
    expect(first.config.jwks.keys[0]).to.include({ kty: 'RSA', alg: 'RS256' });
    expect((await stat(join(dataDir, 'secrets.json'))).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8'))).to.have.keys(
      'cookieKeys',
      'jwks',
      'sealingKey',
    );
  });

  it('refuses generated secrets on PostgreSQL, naming the missing keys, unless SINGLE_INSTANCE=true', async () => {
    const shared = {
      DATA_DIR: dataDir,
      DATABASE_URL: 'postgres://localhost/x',
      SEALING_KEY: randomBytes(32).toString('base64'),
    };
    await loadConfig({}, shared).then(
      () => expect.fail('started'),
      (error: unknown) => {
        expect(error).to.be.instanceOf(ConfigError);
        expect((error as Error).message)
          .to.match(/^invalid configuration: COOKIE_KEYS, JWKS not configured/)
          .and.contain('SINGLE_INSTANCE=true');
      },
    );
    const { config } = await loadConfig({}, { ...shared, SINGLE_INSTANCE: 'true' });
    expect(config.singleInstance).to.equal(true);
    expect(config.cookieKeys).to.have.length(1);
  });
});
