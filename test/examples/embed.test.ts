import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { startEmbedded, type EmbeddedServer } from '../../examples/embed/server.js';
import { testSecrets } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('examples/embed: age-provider mounted in an operator Koa app', () => {
  let database: TestDatabase;
  let embedded: EmbeddedServer;
  let base: string;
  before(async () => {
    database = await createTestDatabase();
    embedded = await startEmbedded({ env: {}, logLevel: 'silent', db: database.db, ...testSecrets }, 0);
    base = `http://127.0.0.1:${(embedded.server.address() as AddressInfo).port}`;
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
});
