import { expect } from 'chai';
import { ConfigError } from '../../../../lib/config/settings.js';
import { createMailer } from '../../../../lib/mail/mailer.js';
import type { Runtime } from '../../../../lib/app/runtime.js';
import { creditCardModule } from '../../../../lib/verification/challenges/credit-card/challenge.js';
import { emailAgeModule } from '../../../../lib/verification/challenges/email-age/challenge.js';
import { judge, selfieModule } from '../../../../lib/verification/challenges/selfie/challenge.js';
import { selfieSettings } from '../../../../lib/verification/challenges/selfie/settings.js';
import { readSection } from '../../../../lib/config/settings.js';
import type { ChallengeModule } from '../../../../lib/verification/challenge.js';
import { recordingLogger, YOTI_SDK_ID, yotiKeyPair } from './helpers/vendors.js';

const runtime = {
  log: recordingLogger(),
  rateLimits: { limiter: () => ({ consume: async () => {}, reset: async () => {} }) },
} as unknown as Runtime;

/** The module configured as start-up does it: its section read from `env`, then handed to configure. */
const configure = async (module: ChallengeModule, env: NodeJS.ProcessEnv) =>
  module.configure(runtime, module.settings && readSection(module.settings, env));

async function refusal(module: ChallengeModule, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    await configure(module, env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail(`configured with ${JSON.stringify(env)}`);
}

describe('vendor challenge settings', () => {
  const { keyFile } = yotiKeyPair();
  const selfie = { SELFIE_YOTI_SDK_ID: YOTI_SDK_ID, SELFIE_YOTI_KEY_FILE: keyFile };
  const email = {
    EMAIL_AGE_YOTI_API_KEY: 'yoti-api-key-123',
    EMAIL_AGE_YOTI_SDK_ID: YOTI_SDK_ID,
    SMTP_URL: 'console',
    MAIL_FROM: 'no-reply@age.example',
  };
  const stripe = { STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_PUBLISHABLE_KEY: 'pk_test_1' };

  it('loads nothing when no vendor key is set', async () => {
    for (const module of [selfieModule, emailAgeModule, creditCardModule])
      expect(await configure(module, {})).to.equal(undefined);
  });

  it('takes the documented defaults and lets the operator change level, free flag and buffer', async () => {
    const defaults = await configure(selfieModule, selfie);
    expect(defaults).to.include({ name: 'selfie', free: true, assuranceLevel: 'ENHANCED' });
    expect(await configure(emailAgeModule, email)).to.include({
      name: 'email_age',
      free: true,
      assuranceLevel: 'STANDARD',
    });
    expect(await configure(creditCardModule, stripe)).to.include({
      name: 'credit_card',
      free: false,
      assuranceLevel: 'STANDARD',
    });
    const changed = await configure(selfieModule, {
      ...selfie,
      SELFIE_ASSURANCE_LEVEL: 'STRICT',
      SELFIE_FREE: 'false',
      SELFIE_AGE_BUFFER: '5',
    });
    expect(changed).to.include({ free: false, assuranceLevel: 'STRICT' });
  });

  it('judges a selfie against the threshold plus SELFIE_AGE_BUFFER (7 unless set)', () => {
    const face = (age: number) => ({ kind: 'estimate', age, stDev: 1, liveness: 'real' }) as const;
    const buffered = (env: NodeJS.ProcessEnv) => readSection(selfieSettings, { ...selfie, ...env })!.settings;
    const five = buffered({ SELFIE_AGE_BUFFER: '5' });
    expect(judge(face(23), 18, five)).to.equal('pass');
    expect(judge(face(22.9), 18, five)).to.equal('under-age');
    const byDefault = buffered({});
    expect(judge(face(25), 18, byDefault)).to.equal('pass');
    expect(judge(face(23), 18, byDefault)).to.equal('under-age');
  });

  it('refuses to start on a missing or bad setting, naming the variable', async () => {
    expect(await refusal(selfieModule, { SELFIE_YOTI_SDK_ID: YOTI_SDK_ID })).to.contain('SELFIE_YOTI_KEY_FILE');
    expect(await refusal(selfieModule, { ...selfie, SELFIE_YOTI_KEY_FILE: '/nonexistent.pem' })).to.contain(
      'SELFIE_YOTI_KEY_FILE',
    );
    expect(await refusal(selfieModule, { ...selfie, SELFIE_AGE_BUFFER: 'seven' })).to.contain('SELFIE_AGE_BUFFER');
    expect(await refusal(selfieModule, { ...selfie, SELFIE_ASSURANCE_LEVEL: 'HIGH' })).to.contain(
      'SELFIE_ASSURANCE_LEVEL',
    );
    expect(await refusal(selfieModule, { ...selfie, VENDOR_TIMEOUT_MS: '0' })).to.contain('VENDOR_TIMEOUT_MS');
    expect(await refusal(emailAgeModule, { ...email, SMTP_URL: '' })).to.contain('SMTP_URL');
    expect(await refusal(emailAgeModule, { ...email, SMTP_URL: 'http://mail.example' })).to.contain('SMTP_URL');
    expect(await refusal(emailAgeModule, { ...email, MAIL_FROM: '' })).to.contain('MAIL_FROM');
    expect(await refusal(emailAgeModule, { ...email, EMAIL_AGE_DEFAULT_COUNTRY: 'gb' })).to.contain(
      'EMAIL_AGE_DEFAULT_COUNTRY',
    );
    expect(await refusal(creditCardModule, { STRIPE_SECRET_KEY: 'sk_test_1' })).to.contain('STRIPE_PUBLISHABLE_KEY');
    expect(await refusal(creditCardModule, { ...stripe, STRIPE_SECRET_KEY: 'sk_live_1' })).to.contain(
      'STRIPE_SECRET_KEY',
    );
  });

  it('the console mail transport prints the whole mail and logs nothing about it', async () => {
    const log = recordingLogger();
    let printed = '';
    const mailer = createMailer({ smtpUrl: 'console', from: 'no-reply@age.example', timeoutMs: 1000 }, log, (text) => {
      printed += text;
    });
    await mailer.send({ to: 'eve@example.org', subject: 'Your code', text: 'Your code is: 123456' });
    expect(printed).to.contain('To: eve@example.org').and.contain('Your code is: 123456');
    expect(log.lines.join()).not.to.contain('eve@example.org');
  });
});
