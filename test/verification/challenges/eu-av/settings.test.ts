import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '../../../../lib/config/settings.js';
import { euAvSettings } from '../../../../lib/verification/challenges/eu-av/settings.js';
import { readSection } from '../../../../lib/config/settings.js';
import { makeRoot, makeSigner, TLS_SERVER_EKU, type Issued } from './hand-made.js';
import { createTestIssuer } from './wallet.js';

const loadEuAvSettings = (env: NodeJS.ProcessEnv) => readSection(euAvSettings, env);

describe('eu_av settings', () => {
  let folder: string;
  let rootPem: string;
  let derRoot: Issued;
  let signer: Issued;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'eu-av-settings-'));
    rootPem = (await createTestIssuer()).rootPem;
    derRoot = await makeRoot('DER');
    signer = await makeSigner('Listed', await makeRoot('Unlisted'));
    await mkdir(join(folder, 'anchors', 'archive'), { recursive: true });
    await writeFile(join(folder, 'anchors', 'a.pem'), rootPem);
    await writeFile(
      join(folder, 'anchors', 'b.crt'),
      `subject=CN=Second\n${(await createTestIssuer('Second')).rootPem}\n${rootPem}`,
    );
    await writeFile(join(folder, 'anchors', 'c.der'), derRoot.der);
    await writeFile(join(folder, 'anchors', 'signer.cer'), signer.der);
    await writeFile(join(folder, 'anchors', '.hidden'), 'not read');
    await writeFile(join(folder, 'anchors', 'archive', 'old.txt'), 'not read: a subdirectory');
    await writeFile(join(folder, 'notes.txt'), 'not a certificate');
    await writeFile(join(folder, 'trailing.der'), Buffer.concat([derRoot.der, Buffer.from('junk')]));
    await writeFile(join(folder, 'tls.pem'), (await makeSigner('TLS', derRoot, { eku: [TLS_SERVER_EKU] })).pem);
    await writeFile(join(folder, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
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

  it("starts with the EC's published test material as anchors: its document signer (EKU 1.3.130.2.0.0.1.2) and its issuer CA", () => {
    const ds = new URL('./fixtures/ec-av-ds-001.pem', import.meta.url).pathname;
    const ca = new URL('./fixtures/ec-av-issuer-ca-01.pem', import.meta.url).pathname;
    const { authorities, signers } = loadEuAvSettings({
      EU_AV_TRUSTED_ISSUERS: `${ds},${ca}`,
    })!.trustedIssuers.current();
    expect(signers.map((certificate) => certificate.subject)).to.deep.equal([
      'CN=Age Verification DS - 001\nO=Age Verification Reference Implementation\nC=EU',
    ]);
    expect(authorities.map((certificate) => certificate.subject)).to.deep.equal([
      'CN=Age Verification Issuer CA 01\nO=Age Verification Reference Implementation\nC=AV',
    ]);
  });

  it('refuses a web scheme among the wallet schemes, naming the setting: a link https://?client_id=… opens no wallet', () => {
    for (const scheme of ['https', 'http']) {
      expect(
        failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors'), EU_AV_WALLET_SCHEMES: `av,${scheme}` }),
      ).to.match(new RegExp(`EU_AV_WALLET_SCHEMES: "${scheme}" is a web scheme, not a wallet's`));
    }
    expect(
      loadEuAvSettings({
        EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors'),
        EU_AV_WALLET_SCHEMES: 'openid4vp,eudi-openid4vp,av',
      })!.walletSchemes,
    ).to.deep.equal(['openid4vp', 'eudi-openid4vp', 'av']);
  });

  it('is off when no EU_AV_* variable is set', () => {
    expect(loadEuAvSettings({})).to.equal(undefined);
  });

  it("reads every certificate of a directory's files, PEM and DER, roots and end-entity signers, with ENHANCED and the av then openid4vp schemes by default", () => {
    const settings = loadEuAvSettings({ EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors') })!;
    const { authorities, signers } = settings.trustedIssuers.current();
    expect(authorities.map((certificate) => certificate.subject))
      .to.have.length(4)
      .and.include('CN=DER IACA\nC=EU');
    expect(signers.map((certificate) => certificate.raw.equals(signer.der))).to.deep.equal([true]);
    expect(settings).to.include({ assuranceLevel: 'ENHANCED' });
    expect(settings.walletSchemes).to.deep.equal(['av', 'openid4vp']);
  });

  it('takes a list of files, a level and schemes (repeated ones once)', () => {
    const settings = loadEuAvSettings({
      EU_AV_TRUSTED_ISSUERS: `${join(folder, 'anchors', 'a.pem')}, ${join(folder, 'anchors', 'c.der')}`,
      EU_AV_ASSURANCE_LEVEL: 'STRICT',
      EU_AV_WALLET_SCHEMES: 'eudi-openid4vp, openid4vp,eudi-openid4vp',
    })!;
    expect(
      settings.trustedIssuers.current().authorities.map((certificate) => certificate.toString().trim()),
    ).to.deep.equal([rootPem.trim(), derRoot.pem.trim()]);
    expect(settings).to.include({ assuranceLevel: 'STRICT' });
    expect(settings.walletSchemes).to.deep.equal(['eudi-openid4vp', 'openid4vp']);
  });

  it('takes an ETSI trusted list instead of, or beside, the files: an https URL or a file, with the certificate its signature must verify against', () => {
    const signerFile = join(folder, 'anchors', 'a.pem');
    const settings = loadEuAvSettings({
      EU_AV_TRUSTED_LIST: 'https://eu.example/av/tl.xml',
      EU_AV_TRUSTED_LIST_SIGNER: signerFile,
    })!;
    expect(settings.trustedIssuers.current()).to.deep.equal({ authorities: [], signers: [] });
    expect(settings.trustedList).to.deep.include({
      location: 'https://eu.example/av/tl.xml',
      refreshMs: 3_600_000,
      fetch: { timeoutMs: 10_000, allowPrivate: false },
    });
    expect(settings.trustedList!.signers.map((certificate) => certificate.toString().trim())).to.deep.equal([
      rootPem.trim(),
    ]);
    const local = loadEuAvSettings({
      EU_AV_TRUSTED_ISSUERS: signerFile,
      EU_AV_TRUSTED_LIST: '/srv/lists/av.xml',
      EU_AV_TRUSTED_LIST_SIGNER: signerFile,
      EU_AV_TRUSTED_LIST_REFRESH_SECONDS: '600',
      EU_AV_TRUSTED_LIST_ALLOW_PRIVATE: 'true',
    })!;
    expect(local.trustedList).to.deep.include({
      location: '/srv/lists/av.xml',
      refreshMs: 600_000,
      fetch: { timeoutMs: 10_000, allowPrivate: true },
    });
    expect(local.trustedIssuers.current().authorities).to.have.length(1);
  });

  it('refuses a trusted list without the certificate to check it against, or over plain http', () => {
    expect(failure({ EU_AV_TRUSTED_LIST: 'https://eu.example/av/tl.xml' })).to.include(
      'EU_AV_TRUSTED_LIST_SIGNER must name the certificate',
    );
    expect(
      failure({
        EU_AV_TRUSTED_LIST: 'http://eu.example/av/tl.xml',
        EU_AV_TRUSTED_LIST_SIGNER: join(folder, 'anchors', 'a.pem'),
      }),
    ).to.include('EU_AV_TRUSTED_LIST must be an https URL or a file path');
    expect(
      failure({
        EU_AV_TRUSTED_LIST: 'https://eu.example/av/tl.xml',
        EU_AV_TRUSTED_LIST_SIGNER: join(folder, 'notes.txt'),
      }),
    ).to.include('EU_AV_TRUSTED_LIST_SIGNER: ');
  });

  it('stops start-up naming the variable and the file at fault: nothing is skipped silently', () => {
    expect(failure({ EU_AV_ASSURANCE_LEVEL: 'ENHANCED' })).to.include(
      'EU_AV_TRUSTED_ISSUERS or EU_AV_TRUSTED_LIST must name what to trust',
    );
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'missing.pem') }))
      .to.include('EU_AV_TRUSTED_ISSUERS')
      .and.include('cannot be read');
    expect(failure({ EU_AV_TRUSTED_ISSUERS: folder })).to.include(
      `EU_AV_TRUSTED_ISSUERS: ${join(folder, 'broken.pem')} holds a certificate that cannot be parsed`,
    );
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'notes.txt') })).to.include(
      `EU_AV_TRUSTED_ISSUERS: ${join(folder, 'notes.txt')} is neither a PEM nor a DER certificate file`,
    );
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'trailing.der') })).to.include(
      'trailing.der is neither a PEM nor a DER certificate file',
    );
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'tls.pem') })).to.match(
      /EU_AV_TRUSTED_ISSUERS: CN=TLS Document Signer.* is an end-entity certificate but not a document signer/,
    );
    expect(failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors'), EU_AV_ASSURANCE_LEVEL: 'HIGH' })).to.include(
      'EU_AV_ASSURANCE_LEVEL',
    );
    expect(
      failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors'), EU_AV_WALLET_SCHEMES: 'openid4vp://' }),
    ).to.include('EU_AV_WALLET_SCHEMES');
    expect(
      failure({ EU_AV_TRUSTED_ISSUERS: join(folder, 'anchors'), EU_AV_WALLET_SCHEMES: 'av,openid4vp,a,b,c' }),
    ).to.include('EU_AV_WALLET_SCHEMES');
  });
});
