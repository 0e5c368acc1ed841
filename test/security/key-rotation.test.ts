import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { expect } from 'chai';
import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import { knexAdapter } from '../../adapters/knex.js';
import { createAgeProvider, type AgeProvider } from '../../lib/app/app.js';
import { Browser, decodeHtml } from '../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { redeem } from '../helpers/relying-party.js';
import { walkSandbox } from '../helpers/visitor.js';
import { cli } from '../cli/run.js';

// Rotating JWKS and COOKIE_KEYS with docs/configuration.md's procedure ("Rotating keys") across two instances behind
// one round-robin address, one instance restarted at a time: no request fails, every token verifies.

const PAGE = 'http://127.0.0.1:5500';

/** The three variables as the instances read them (what `age-provider secrets` prints). */
type Secrets = Record<'COOKIE_KEYS' | 'JWKS' | 'SEALING_KEY', string>;

async function freshSecrets(): Promise<Secrets> {
  return parseEnv((await cli({}, ['secrets'])).stdout) as Secrets;
}

/** The next step's values, made by the command an operator runs. */
async function rotated(secrets: Secrets, step: 'add' | 'switch' | 'retire'): Promise<Secrets> {
  const next = { ...secrets };
  for (const [secret, variable] of [
    ['jwks', 'JWKS'],
    ['cookie-keys', 'COOKIE_KEYS'],
  ] as const) {
    const run = await cli({ ...secrets, LOG_LEVEL: 'silent' }, ['secrets', 'rotate', secret, step]);
    expect(run.code, run.stderr).to.equal(0);
    next[variable] = parseEnv(run.stdout)[variable]!;
  }
  return next;
}

const kids = (secrets: Secrets): string[] => (JSON.parse(secrets.JWKS) as JSONWebKeySet).keys.map((key) => key.kid!);

describe('rotating the signing and cookie keys across two instances, one restarted at a time', function () {
  this.timeout(240_000);
  let database: TestDatabase;
  let dataDir: string;
  let server: Server;
  let issuer: string;
  const instances: AgeProvider[] = [];
  let turn = 0;
  let site: ClientFixture;
  /** what every instance runs once the rotation is over */
  let current: Secrets;

  const start = (secrets: Secrets): Promise<AgeProvider> =>
    createAgeProvider(
      {
        env: { ...secrets },
        logLevel: 'silent',
        issuer,
        dataDir,
        db: database.db,
        ...(database.url ? { databaseUrl: database.url } : {}),
      },
      knexAdapter,
    );

  /** A rolling restart's one step: instance `index` stops and comes back with `secrets`; the other keeps serving. */
  async function restart(index: number, secrets: Secrets): Promise<void> {
    const old = instances[index]!;
    instances[index] = await start(secrets);
    old.drain();
    await old.close();
  }

  before(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-rotation-'));
    // The proxy in front: requests alternate between the two instances.
    server = createServer((request, response) => {
      const instance = instances[turn++ % instances.length]!;
      void instance.app.callback()(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const instance of instances) await instance.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The JWKS each instance publishes (two fetches through the round robin: one from each). */
  async function publishedSets(): Promise<JSONWebKeySet[]> {
    return Promise.all(
      [0, 1].map(async () => (await (await fetch(`${issuer}/v1/oauth2/jwks`)).json()) as JSONWebKeySet),
    );
  }

  /**
   * What visitors and websites do meanwhile, through both instances: a verification in the checker window ending in
   * a signed result, and an OAuth2 authorization whose code is exchanged for a token that Resources accepts.
   */
  async function traffic(): Promise<string> {
    const visitor = new Browser(issuer, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
    const query = new URLSearchParams({
      key: site.keys.TEST,
      origin: PAGE,
      target: 'redirect',
      return_to: `${PAGE}/shop`,
    });
    const stuck = await walkSandbox(visitor, await visitor.open(`/v1/checker/start?${query.toString()}`), PAGE).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(stuck?.message, `the walk ends on the checker's result page:\n${visitor.trail()}`).to.match(
      /^stuck on .*\/v1\/checker\/callback/,
    );
    expect(
      visitor.history.filter(({ status }) => status >= 400),
      visitor.trail(),
    ).to.deep.equal([]);
    const back = new URL(decodeHtml(/<a id="age-provider-return" href="([^"]+)"/.exec(visitor.html)![1]!));
    const token = /^#age_provider_token=(.+)$/.exec(back.hash)?.[1];
    expect(token, back.hash).to.be.a('string');

    const shopper = new Browser(issuer, { headers: { 'accept-language': 'en' } });
    const authorization = new URLSearchParams({
      client_id: site.clientId,
      redirect_uri: site.redirectUri,
      state: 'st-42',
    });
    const landing = await walkSandbox(
      shopper,
      await shopper.open(`/v1/oauth2/checker?${authorization.toString()}`),
      new URL(site.redirectUri).origin,
    );
    const code = (landing.location ?? landing.url).searchParams.get('code');
    expect(code, shopper.trail()).to.be.a('string');
    expect(
      shopper.history.filter(({ status }) => status >= 400),
      shopper.trail(),
    ).to.deep.equal([]);
    const resources = await redeem({ url: issuer }, site, code!);
    expect(resources).to.include({ verified: true });
    return token!;
  }

  /** Every token still in use verifies against the JWKS of each instance, as a relying party fetching either would check it. */
  async function verifyAll(tokens: string[]): Promise<void> {
    for (const jwks of await publishedSets()) {
      for (const token of tokens) {
        await jwtVerify(token, createLocalJWKSet(jwks), {
          issuer,
          audience: site.keys.TEST,
          typ: 'age-verification+jwt',
        });
      }
    }
  }

  it('publishes, switches and retires with no failed request and every signed result verifying throughout', async () => {
    let secrets = await freshSecrets();
    instances.push(await start(secrets), await start(secrets));
    const webmaster = await createWebmasterFixture(instances[0]!.runtime);
    site = await createClientFixture(instances[0]!.runtime, webmaster.id, {
      environment: 'TEST',
      domain: 'shop.example',
      redirectUris: ['http://127.0.0.1:5501/callback'],
    });

    const [first] = kids(secrets);
    let inUse = [await traffic()];
    await verifyAll(inUse);

    for (const step of ['add', 'switch', 'retire'] as const) {
      // Retired only once what it signed has expired: the results signed with the old key have left use by then.
      if (step === 'retire') inUse = inUse.filter((token) => decodeProtectedHeader(token).kid !== first);
      const next = await rotated(secrets, step);
      for (const index of [0, 1]) {
        await restart(index, next);
        // Right after each restart the instances differ: exactly the moment a careless rotation breaks.
        inUse.push(await traffic(), await traffic());
        await verifyAll(inUse);
      }
      secrets = next;
    }
    current = secrets;
    const [second] = kids(secrets);
    expect(kids(secrets)).to.deep.equal([second]);
    expect(second).not.to.equal(first);
    expect(
      inUse.map((token) => decodeProtectedHeader(token).kid),
      'signed with the new key after the switch',
    ).to.include(second);
    expect(inUse.length).to.be.above(2);
  });

  it('would fail without the publish step: a key that signs before every instance publishes it is unknown to relying parties', async () => {
    const secrets = current;
    const added = await rotated(secrets, 'add');
    const switchedAtOnce = await rotated(added, 'switch');
    // One instance signs with the new key while the other still publishes only the old one (the cookie keys agree).
    await restart(0, { ...secrets, JWKS: switchedAtOnce.JWKS });
    await restart(1, secrets);
    const tokens = [await traffic(), await traffic()];
    const failures = await Promise.all(
      (await publishedSets()).flatMap((jwks) =>
        tokens.map((token) =>
          jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience: site.keys.TEST }).then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      ),
    );
    expect(
      failures.filter((error) => error instanceof joseErrors.JWKSNoMatchingKey),
      'an unknown kid',
    ).to.have.length.above(0);
  });
});
