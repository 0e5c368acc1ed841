import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('behind a trusted proxy', () => {
  let app: TestApp;
  let probe: Server;
  let probeUrl: string;
  before(async () => {
    app = await startTestApp({ trustProxy: true });
    // A probe in front of the real chain shows the address every per-IP rule and the geo lookup see.
    app.provider.app.middleware.unshift(async (ctx, next) => {
      if (ctx.path === '/__ip') ctx.body = ctx.ip;
      else await next();
    });
    const handle = app.provider.app.callback();
    probe = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    probeUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  });
  after(async () => {
    probe.close();
    await app.close();
  });

  it('uses the address the proxy appended, not one the client forged before it', async () => {
    const response = await fetch(`${probeUrl}/__ip`, { headers: { 'X-Forwarded-For': '203.0.113.7, 198.51.100.2' } });
    expect(await response.text()).to.equal('198.51.100.2');
  });
});
