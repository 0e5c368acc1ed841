import { expect } from 'chai';
import {
  judgeAge,
  mapLevel,
  readClaim,
  withThreshold,
} from '../../../../lib/verification/challenges/federated/claims.js';
import { FEDERATED_NAMES, federatedSettings } from '../../../../lib/verification/challenges/federated/settings.js';
import { readSection } from '../../../../lib/config/settings.js';

const today = new Date('2026-06-15T12:00:00Z');

/** Every provider the operator configured, as start-up reads them. */
const loadFederatedSettings = (env: NodeJS.ProcessEnv) =>
  FEDERATED_NAMES.flatMap((name) => readSection(federatedSettings(name), env) ?? []);

describe('federated claims: reading the age answer', () => {
  it('reads a claim by its whole name first, else by dotted steps', () => {
    const claims = {
      'https://example.com/age': 21,
      age_thresholds: { 18: true },
      verified_claims: { claims: { age_over_18: false } },
    };
    expect(readClaim(claims, 'https://example.com/age')).to.equal(21);
    expect(readClaim(claims, withThreshold('age_thresholds.{threshold}', 18))).to.equal(true);
    expect(readClaim(claims, 'verified_claims.claims.age_over_18')).to.equal(false);
    expect(readClaim(claims, 'verified_claims.missing.deeper')).to.equal(undefined);
    expect(readClaim(claims, 'age_thresholds.constructor')).to.equal(undefined);
  });

  it('understands booleans, ages, birthdates, ranges and per-threshold answers', () => {
    const cases: Array<[unknown, 'over' | 'under' | 'unknown']> = [
      [true, 'over'],
      [false, 'under'],
      ['true', 'over'],
      ['false', 'under'],
      [18, 'over'],
      [17, 'under'],
      [-1, 'unknown'],
      ['2008-06-15', 'over'],
      ['2008-06-16', 'under'],
      ['2008-06-15T00:00:00Z', 'over'],
      ['2007', 'over'],
      ['2008', 'under'],
      ['0000-01-01', 'unknown'],
      ['2000-13-01', 'unknown'],
      ['18-20', 'over'],
      ['21+', 'over'],
      ['13-17', 'under'],
      ['16-25', 'unknown'],
      [{ 18: true }, 'over'],
      [{ 18: false }, 'under'],
      [{ 21: true }, 'unknown'],
      [undefined, 'unknown'],
      [null, 'unknown'],
      ['adult', 'unknown'],
      [[true], 'unknown'],
    ];
    for (const [value, expected] of cases) expect(judgeAge(value, 18, today), JSON.stringify(value)).to.equal(expected);
  });

  it('maps a provider level only when the operator listed it', () => {
    expect(mapLevel('high', { high: 'STRICT' })).to.equal('STRICT');
    expect(mapLevel(3, { 3: 'ENHANCED' })).to.equal('ENHANCED');
    expect(mapLevel('low', { high: 'STRICT' })).to.equal(undefined);
    expect(mapLevel('toString', { high: 'STRICT' })).to.equal(undefined);
  });
});

describe('federated settings', () => {
  it('loads nothing without variables, and AgeKey with the documented defaults', () => {
    expect(loadFederatedSettings({})).to.deep.equal([]);
    const [agekey] = loadFederatedSettings({
      AGEKEY_ISSUER: 'https://agekey.example',
      AGEKEY_CLIENT_ID: 'ak_live_x',
      AGEKEY_AUTHORIZATION_ENDPOINT: 'https://agekey.example/v1/oidc/use',
      AGEKEY_JWKS_URI: 'https://agekey.example/.well-known/jwks.json',
      AGEKEY_CLAIMS: '{"allowed_methods":["id_doc_scan"]}',
    });
    expect(agekey).to.include({
      responseType: 'id_token',
      responseMode: 'fragment',
      ageClaim: 'age_thresholds.{threshold}',
      tokenAuthMethod: 'none',
      assuranceLevel: 'STANDARD',
    });
    expect(agekey?.ageKeyClaims).to.deep.equal({ allowed_methods: ['id_doc_scan'] });
  });

  it('names the variable at fault', () => {
    const base = {
      ANONYMAGE_ISSUER: 'https://a.example',
      ANONYMAGE_CLIENT_ID: 'x',
      ANONYMAGE_AGE_CLAIM: 'age_over_18',
    };
    const problems: Array<[Record<string, string>, string]> = [
      [{ ...base, ANONYMAGE_AGE_CLAIM: '' }, 'ANONYMAGE_AGE_CLAIM is required'],
      [{ ...base, ANONYMAGE_LEVEL_CLAIM: 'acr' }, 'ANONYMAGE_LEVEL_MAP is required with ANONYMAGE_LEVEL_CLAIM'],
      [{ ...base, ANONYMAGE_LEVEL_MAP: '{"x":"HIGH"}', ANONYMAGE_LEVEL_CLAIM: 'acr' }, 'ANONYMAGE_LEVEL_MAP'],
      [
        { ...base, ANONYMAGE_LEVEL_MAP: 'not json', ANONYMAGE_LEVEL_CLAIM: 'acr' },
        'ANONYMAGE_LEVEL_MAP: not valid JSON',
      ],
      [{ ...base, ANONYMAGE_SCOPES: 'profile' }, 'ANONYMAGE_SCOPES'],
      [{ ...base, ANONYMAGE_TOKEN_AUTH_METHOD: 'client_secret_basic' }, 'ANONYMAGE_CLIENT_SECRET is required'],
      [{ ...base, ANONYMAGE_TIMEOUT: '600' }, 'ANONYMAGE_TIMEOUT'],
      [
        { ...base, ANONYMAGE_AUTHORIZATION_ENDPOINT: 'https://a.example/auth' },
        'ANONYMAGE_JWKS_URI is required with ANONYMAGE_AUTHORIZATION_ENDPOINT',
      ],
      [{ ...base, ANONYMAGE_CLAIMS: '{}' }, 'ANONYMAGE_CLAIMS is only read for agekey'],
      [
        {
          PAYPAL_ISSUER: 'https://p.example',
          PAYPAL_CLIENT_ID: 'x',
          PAYPAL_AGE_CLAIM: 'birthdate',
          PAYPAL_FREE: 'true',
        },
        'PAYPAL_FREE is not accepted',
      ],
      [
        { ...base, ANONYMAGE_RESPONSE_TYPE: 'id_token', ANONYMAGE_CLAIMS_SOURCE: 'userinfo' },
        'ANONYMAGE_CLAIMS_SOURCE must be id_token',
      ],
    ];
    for (const [env, message] of problems) {
      expect(() => loadFederatedSettings(env), message).to.throw(message);
    }
  });
});
