import { expect } from 'chai';
import { ConfigError } from '../../lib/config/settings.js';
import { PRESETS } from '../../lib/policy/presets/index.js';
import { policyRuleSchema } from '../../lib/policy/schema.js';
import { conforms } from '../../lib/websites/validation.js';
import { startTestApp, useApp } from '../helpers/app.js';

// The presets shipped as data, the operator's choice of them, and GET /v1/policies that publishes it.

const isRule = conforms(policyRuleSchema);

describe('policy presets: the data', () => {
  const presets = [...PRESETS.values()];

  it('ships the EU default, France, the UK, Germany, Italy, Spain and the US states with laws in force', () => {
    expect([...PRESETS.keys()]).to.include.members([
      'eu-default',
      'fr',
      'gb',
      'de',
      'it',
      'es',
      'us-tx',
      'us-la',
      'us-ut',
      'us-va',
      'us-ms',
      'us-al',
      'us-fl',
    ]);
    expect(PRESETS.get('eu-default')!.rules[0]!.regions).to.have.length(27);
  });

  it('holds rules the website rule schema accepts, each citing dated sources and saying why', () => {
    for (const preset of presets) {
      expect(preset.version, preset.id).to.match(/^\d+$/);
      expect(preset.date, preset.id).to.match(/^\d{4}-\d{2}-\d{2}$/);
      expect(preset.rules, preset.id).to.not.be.empty;
      for (const { sources, note, ...rule } of preset.rules) {
        expect(isRule(rule), `${preset.id}: ${JSON.stringify(rule)}`).to.equal(true);
        expect(note.length, preset.id).to.be.greaterThan(20);
        expect(sources, preset.id).to.not.be.empty;
        for (const source of sources) {
          expect(source.url, preset.id).to.match(/^https:\/\//);
          expect(source.date, preset.id).to.match(/^\d{4}-\d{2}-\d{2}$/);
          expect(source.title, preset.id).to.not.equal('');
        }
      }
    }
  });

  it('sets the ages of the states whose age of majority is not 18', () => {
    expect(PRESETS.get('us-ms')!.rules[0]!.ageThreshold).to.equal(21);
    expect(PRESETS.get('us-al')!.rules[0]!.ageThreshold).to.equal(19);
  });

  it('asks France for a double-anonymity method and dates the payment card', () => {
    const [rule] = PRESETS.get('fr')!.rules;
    expect(rule!.requireDoubleAnonymity).to.equal(true);
    expect(rule!.challengesUntil).to.have.property('credit_card');
  });
});

describe('policy presets: the operator setting', () => {
  it('refuses an unknown preset, naming POLICY_PRESETS', async () => {
    const error = await startTestApp({ env: { POLICY_PRESETS: 'fr,atlantis' } }).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems.join(' ')).to.contain('POLICY_PRESETS');
  });
});

describe('GET /v1/policies', () => {
  const app = useApp({ env: { POLICY_PRESETS: 'fr,us-ms', AGE_THRESHOLDS: '{"JP":20}' } });

  it('lists the presets in force with their rules and sources, to any origin', async () => {
    const response = await fetch(`${app.url}/v1/policies`, { headers: { Origin: 'https://auditor.example' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    const body = (await response.json()) as {
      ageThreshold: number;
      ageThresholds: Record<string, number>;
      presets: Array<{ id: string; version: string; rules: Array<{ sources: unknown[] }> }>;
    };
    expect(body.ageThreshold).to.equal(18);
    expect(body.ageThresholds).to.deep.equal({ JP: 20 });
    expect(body.presets.map((preset) => preset.id)).to.deep.equal(['fr', 'us-ms']);
    expect(body.presets[0]!.rules[0]!.sources).to.not.be.empty;
  });

  it('lists none when the operator put none in force', async () => {
    const plain = await startTestApp();
    try {
      const body = (await (await fetch(`${plain.url}/v1/policies`)).json()) as { presets: unknown[] };
      expect(body.presets).to.deep.equal([]);
    } finally {
      await plain.close();
    }
  });

  it('answers another method with an error in the OAuth2 JSON shape, never a 5xx', async () => {
    const response = await fetch(`${app.url}/v1/policies`, { method: 'POST' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('GET, HEAD');
    expect(await response.json()).to.have.property('error');
  });
});
