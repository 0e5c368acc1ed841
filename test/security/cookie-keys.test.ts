import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { CookieKeys } from '../../lib/security/cookie-keys.js';

const NEW_KEY = 'n'.repeat(32);
const OLD_KEY = 'o'.repeat(32);

/** A Koa app that signs a cookie on /set and reads it back on /get, under `keys` (strings: keygrip, as Koa does by default). */
async function cookieApp(keys: string[] | CookieKeys): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  app.keys = keys;
  app.use((ctx) => {
    if (ctx.path === '/set') ctx.cookies.set('visit', 'v-123', { signed: true });
    ctx.body = ctx.cookies.get('visit', { signed: true }) ?? 'refused';
  });
  const handle = app.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The cookies an answer sets, as the Cookie header a browser would send back. */
const cookiesOf = (response: Response): string =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');

describe('security: the cookie keys are imported once and sign as keygrip does', () => {
  const servers: Server[] = [];
  const start = async (keys: string[] | CookieKeys) => {
    const started = await cookieApp(keys);
    servers.push(started.server);
    return started.url;
  };
  after(() => servers.forEach((server) => server.close()));

  it('a cookie signed under the keys given as strings is read under CookieKeys, and the other way round', async () => {
    const asStrings = await start([NEW_KEY]);
    const imported = await start(new CookieKeys([NEW_KEY]));
    for (const [signer, reader] of [
      [asStrings, imported],
      [imported, asStrings],
    ] as const) {
      const cookie = cookiesOf(await fetch(`${signer}/set`));
      expect(cookie).to.match(/visit=v-123; visit\.sig=[\w-]{27}$/);
      expect(await (await fetch(`${reader}/get`, { headers: { cookie } })).text()).to.equal('v-123');
    }
  });

  it('a cookie signed under a retired key is still read and signed again under the newest; a forged one is refused', async () => {
    const cookie = cookiesOf(await fetch(`${await start([OLD_KEY])}/set`));
    const rotated = await start(new CookieKeys([NEW_KEY, OLD_KEY]));
    const read = await fetch(`${rotated}/get`, { headers: { cookie } });
    expect(await read.text()).to.equal('v-123');
    const resigned = cookiesOf(read);
    expect(resigned)
      .to.match(/^visit\.sig=[\w-]{27}$/)
      .and.not.equal(cookie.split('; ')[1]);
    expect(
      await (
        await fetch(`${await start(new CookieKeys([NEW_KEY]))}/get`, {
          headers: { cookie: `visit=v-123; ${resigned}` },
        })
      ).text(),
    ).to.equal('v-123');

    const unknown = await start(new CookieKeys([NEW_KEY]));
    expect(await (await fetch(`${unknown}/get`, { headers: { cookie } })).text()).to.equal('refused');
    expect(
      await (await fetch(`${rotated}/get`, { headers: { cookie: cookie.replace('v-123', 'v-124') } })).text(),
    ).to.equal('refused');
  });

  it('refuses to start without a key', () => {
    expect(() => new CookieKeys([])).to.throw(/at least one cookie key/);
  });
});
