import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '../../../../lib/config/settings.js';
import { euAvSettings } from '../../../../lib/verification/challenges/eu-av/settings.js';
import { readSection } from '../../../../lib/config/settings.js';
import { createTestIssuer } from './wallet.js';


const loadEuAvSettings = (env: NodeJS.ProcessEnv) => readSection(euAvSettings, env);

describe('eu_av settings', () => {
  let folder: string;
  let rootPem: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'eu-av-settings-'));
    rootPem = (await createTestIssuer()).rootPem;
    await writeFile(join(folder, 'a.pem'), rootPem);
    await writeFile(join(folder, 'b.crt'), `${(await createTestIssuer('Second')).rootPem}\n${rootPem}`);
    await writeFile(join(folder, 'notes.txt'), 'ignored');
    await writeFile(join(folder, 'empty.pem.txt'), '');
  });
  after(() => rm(folder, { recursive: true, force: true }));

  const failure = (env: NodeJS.ProcessEnv): string => {
    try {
      loadEuAvSettings(env);
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('no ConfigError');
  };

  it('is off when no EU_AV_* variable is set', () => {
    expect(loadEuAvSettings({})).to.equal(undefined);
  });

  it('reads every certificate of a directory\'s .pem and .crt files, with ENHANCED and the openid4vp scheme by default', () => {
    const settings = loadEuAvSettings({ EU_AV_TRUSTED_ISSUERS: folder })!;
    expect(settings.trustedIssuers.current().authorities).to.have.length(3);
    expect(settings).to.include({ assuranceLevel: 'ENHANCED', walletScheme: 'openid4vp' });
  });

  it('takes a list of files, a level and a scheme', () => {
    const settings = loadEuAvSettings({ EU_AV_TRUSTED_ISSUERS: `${join(folder, 'a.pem')}, ${join(folder, 'a.pem')}`, EU_AV_ASSURANCE_LEVEL: 'STRICT', EU_AV_WALLET_SCHEME: 'eudi-openid4vp' })!;
    expect(settings.trustedIssuers.current().authorities.map((certificate) => certificate.toString().trim())).to.deep.equal([rootPem, rootPem].map((pem) => pem.trim()));
    expect(settings).to.include({ assuranceLevel: 'STRICT', walletScheme: 'eudi-openid4vp' });
  });

  it('stops start-up naming the variable at fault', () => {
    expect(failure({ EU_AV_ASSURANCE_LEVEL: 'ENHANCED' })).to.include('EU_AV_TRUSTED_ISSUERS');
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'missing.pem') })).to.include('EU_AV_TRUSTED_ISSUERS').and.include('cannot be read');
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'notes.txt') })).to.include('no PEM certificate found');
    expect(failure({ EU_AV_TRUSTED_ISSUERS: folder, EU_AV_ASSURANCE_LEVEL: 'HIGH' })).to.include('EU_AV_ASSURANCE_LEVEL');
    expect(failure({ EU_AV_TRUSTED_ISSUERS: folder, EU_AV_WALLET_SCHEME: 'openid4vp://' })).to.include('EU_AV_WALLET_SCHEME');
  });
});
