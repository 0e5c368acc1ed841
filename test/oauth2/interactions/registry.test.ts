import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { availableChallenges, parseRequestedChallenges } from '../../../lib/verification/availability.js';
import type { Challenge, ChallengeName } from '../../../lib/verification/challenge.js';
import type { ChallengeModule } from '../../../lib/verification/challenge.js';
import { buildRegistry, CHALLENGE_MODULES } from '../../../lib/verification/registry.js';
import { loadConfig } from '../../../lib/app/config.js';
import { generateTicketCode, normalizeTicketCode } from '../../../lib/verification/challenges/ticket/codes.js';

const everything = (): boolean => true;

describe('challenge availability and the registry', () => {
  describe('availableChallenges', () => {
    it('is the website list when the request names none', () => {
      expect(availableChallenges(['selfie', 'ticket'], undefined, everything)).to.deep.equal(['selfie', 'ticket']);
    });

    it('narrows to the request, in its order, and never widens', () => {
      expect(
        availableChallenges(['selfie', 'email_age', 'ticket'], ['ticket', 'credit_card', 'selfie'], everything),
      ).to.deep.equal(['ticket', 'selfie']);
    });

    it('adds paypal, agego and agekey only when the request names them; a website record cannot', () => {
      expect(availableChallenges(['selfie'], ['paypal', 'agego', 'agekey'], everything)).to.deep.equal([
        'paypal',
        'agego',
        'agekey',
      ]);
      expect(availableChallenges(['selfie', 'paypal'], undefined, everything)).to.deep.equal(['selfie']);
    });

    it("offers eu_av after the website's challenges when the request names none and the operator configured it", () => {
      const euAvConfigured = (name: ChallengeName): boolean => name === 'eu_av';
      expect(availableChallenges(['selfie', 'eu_av'], undefined, everything, euAvConfigured)).to.deep.equal([
        'selfie',
        'eu_av',
      ]);
      expect(availableChallenges(['selfie'], undefined, everything)).to.deep.equal(['selfie']);
      expect(availableChallenges(['selfie'], ['selfie'], everything, euAvConfigured)).to.deep.equal(['selfie']);
    });

    it('keeps only what the operator offers', () => {
      expect(availableChallenges(['selfie', 'ticket'], undefined, (name) => name === 'ticket')).to.deep.equal([
        'ticket',
      ]);
      expect(availableChallenges(['selfie'], ['selfie'], (name) => name === 'ticket')).to.deep.equal([]);
    });

    it('parses the comma list, ignoring empty values', () => {
      expect(parseRequestedChallenges('selfie,ticket')).to.deep.equal(['selfie', 'ticket']);
      expect(parseRequestedChallenges('')).to.equal(undefined);
      expect(parseRequestedChallenges(undefined)).to.equal(undefined);
    });
  });

  describe('buildRegistry', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    const fake = (name: ChallengeName): Challenge => ({
      name,
      free: true,
      assuranceLevel: 'ENHANCED',
      steps: { start: { GET: async () => undefined } },
    });
    const module = (name: ChallengeName, configured: boolean): ChallengeModule => ({
      name,
      configure: () => (configured ? fake(name) : undefined),
    });

    it("mounts a challenge's own routes only when it is configured (eu_av's response URI is 404 here)", async () => {
      const response = await fetch(`${app.url}/v1/oauth2/eu-av/response`, {
        method: 'POST',
        body: new URLSearchParams({ state: 'x', vp_token: '{}' }),
      });
      expect(response.status).to.equal(404);
      const registry = await buildRegistry(app.provider.runtime, [module('selfie', true)]);
      expect(registry.routes).to.deep.equal([]);
      expect(registry.configured('selfie')).to.equal(true);
      expect(registry.configured('eu_av')).to.equal(false);
    });

    it('loads configured challenges for LIVE and runs the sandbox for every name in TEST', async () => {
      const registry = await buildRegistry(app.provider.runtime, [module('selfie', true), module('email_age', false)]);
      expect(registry.offers('LIVE', 'selfie')).to.equal(true);
      expect(registry.offers('LIVE', 'email_age')).to.equal(false);
      expect(registry.resolve('LIVE', 'email_age')).to.equal(undefined);
      expect(registry.resolve('LIVE', 'selfie')?.assuranceLevel).to.equal('ENHANCED');
      for (const name of ['selfie', 'email_age', 'paypal'] as const) {
        expect(registry.offers('TEST', name)).to.equal(true);
        expect(registry.resolve('TEST', name)?.name).to.equal(name);
      }
      // TEST never runs the configured challenge, even where one exists.
      const liveSelfie = registry.resolve('LIVE', 'selfie');
      expect(liveSelfie?.name).to.equal('selfie');
      expect(registry.resolve('TEST', 'selfie')).to.not.equal(liveSelfie);
      expect(registry.resolve('LIVE', 'paypal')).to.equal(undefined);
      // The sandbox proposes the level the configured challenge would record.
      expect(registry.resolve('TEST', 'selfie')?.assuranceLevel).to.equal('ENHANCED');
      expect(registry.resolve('TEST', 'email_age')?.assuranceLevel).to.equal('STANDARD');
    });

    it('logs at start-up each configured challenge, with its level, free flag and vendor, and nothing unconfigured', async () => {
      const lines: Array<{ message: string } & Record<string, unknown>> = [];
      const keep = (message: string, fields: Record<string, unknown> = {}) => {
        lines.push({ message, ...fields });
      };
      const env = {
        STRIPE_SECRET_KEY: 'sk_test_1',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_1',
        ANONYMAGE_ISSUER: 'https://anonymage.example',
        ANONYMAGE_CLIENT_ID: 'client',
        ANONYMAGE_AGE_CLAIM: 'age_over_{threshold}',
        PAYPAL_ISSUER: 'https://paypal.example',
        PAYPAL_CLIENT_ID: 'client',
        PAYPAL_AGE_CLAIM: 'age_over_{threshold}',
      };
      // Read as at start-up: the challenges' sections of the configuration, from this environment.
      const { config } = await loadConfig({}, env);
      const runtime = {
        ...app.provider.runtime,
        config: { ...app.provider.runtime.config, challenges: config.challenges },
        log: { debug: keep, info: keep, warn: keep, error: keep },
      };
      await buildRegistry(runtime);
      const active = lines
        .filter((line) => line.message === 'challenge active')
        .map(({ message: _, ...fields }) => fields);
      expect(active).to.have.deep.members([
        { challenge: 'ticket', assuranceLevel: 'STRICT', free: true },
        { challenge: 'credit_card', assuranceLevel: 'STANDARD', free: false, vendor: 'stripe' },
        { challenge: 'anonymage', assuranceLevel: 'STRICT', free: false },
        { challenge: 'paypal', assuranceLevel: 'STANDARD', free: false },
      ]);
    });

    it('refuses a challenge registered twice', async () => {
      let failure: unknown;
      await buildRegistry(app.provider.runtime, [module('selfie', true), module('selfie', true)]).catch(
        (error: unknown) => {
          failure = error;
        },
      );
      expect(String(failure)).to.contain('registered twice');
    });

    it('registers the built-in ticket challenge, always configured', async () => {
      expect(CHALLENGE_MODULES.map((entry) => entry.name)).to.include('ticket');
      const registry = await buildRegistry(app.provider.runtime);
      expect(registry.resolve('LIVE', 'ticket')?.assuranceLevel).to.equal('STRICT');
    });
  });

  describe('ticket codes', () => {
    it('are 20 symbols of Crockford base32 in groups of four, and all different', () => {
      const codes = Array.from({ length: 200 }, generateTicketCode);
      for (const code of codes) expect(code).to.match(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
      expect(new Set(codes).size).to.equal(codes.length);
    });

    it('normalise case, spaces, dashes and look-alike letters', () => {
      expect(normalizeTicketCode(' 7kq2 m9xd-3htw–zp5n c8rv ')).to.equal('7KQ2M9XD3HTWZP5NC8RV');
      expect(normalizeTicketCode('OIL0-0000-0000-0000-0000')).to.equal('01100000000000000000');
      expect(normalizeTicketCode('7KQ2-M9XD-3HTW-ZP5N')).to.equal(undefined);
      expect(normalizeTicketCode('7KQ2-M9XD-3HTW-ZP5N-C8RU')).to.equal(undefined);
    });
  });
});
