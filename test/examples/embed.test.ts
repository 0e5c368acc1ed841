import { expect } from 'chai';
import { createServer, type AddressInfo } from 'node:net';
import { startEmbedded, type EmbeddedServer } from '../../examples/embed/server.js';
import { testSecrets } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { callbackOf, walkSandbox } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';

/** A port nobody listens on now, so the issuer can name it before the server starts. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

describe('examples/embed: age-provider mounted in an operator Koa app', () => {
  let database: TestDatabase;
  let embedded: EmbeddedServer;
  let base: string;
  let client: ClientFixture;
  before(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    embedded = await startEmbedded(
      { env: {}, logLevel: 'silent', db: database.db, issuer: base, ...testSecrets },
      port,
    );
    const { runtime } = embedded.ageProvider;
    client = await createClientFixture(runtime, (await createWebmasterFixture(runtime)).id, { environment: 'TEST' });
  });
  after(async () => {
    await embedded.close();
    await database.drop();
  });

  it("serves the operator's own route", async () => {
    const response = await fetch(`${base}/operator/status`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.include({ operator: 'example' });
  });

  it('serves age-provider surfaces through the mount', async () => {
    const health = await fetch(`${base}/readyz`);
    expect(health.status).to.equal(200);
    const page = await fetch(`${base}/unknown`, { headers: { 'Accept-Language': 'de' } });
    expect(page.status).to.equal(404);
    expect(await page.text()).to.contain('<html lang="de">');
  });

  /** A visitor through the prompt, the choice, the sandbox and the result: every form carries its token, every step a signed cookie. */
  const walk = async (): Promise<void> => {
    const visitor = new Browser(base);
    const done = new URL(client.redirectUri).origin;
    const end = await walkSandbox(visitor, await visitor.open(authorizationUrl(base, client), { stopAt: done }), done);
    expect(callbackOf(end, client).get('code'), visitor.trail()).to.be.a('string');
  };

  it("a visitor goes through the pages to the code under the parent's keys, as the example mounts them", walk);

  it("and when the operator's app keeps the same keys as strings (cookies and form tokens signed alike)", async () => {
    embedded.app.keys = [...embedded.ageProvider.config.cookieKeys];
    await walk();
  });
});
