import { expect } from 'chai';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { FetchError, httpsGet, type Resolve } from '../../lib/security/outbound-get.js';
import { resolveDestination } from '../../lib/webhooks/destination.js';
import { send } from '../../lib/webhooks/sender.js';
import { publicDomainProbe } from '../../lib/websites/domain-probe.js';

/** A public address (example.com's): nothing answers it from the test machine, which is all the test needs. */
const PUBLIC = '93.184.215.14';

/**
 * A DNS server under an attacker's control, rebinding: its first answer is public, every later one loopback, where
 * a service of the operator's listens. A client that checks one answer and connects with another reaches loopback.
 */
function rebinding(): { resolve: Resolve; asked: () => number } {
  let asked = 0;
  return {
    resolve: async () => {
      asked += 1;
      return [{ address: asked === 1 ? PUBLIC : '127.0.0.1', family: 4 }];
    },
    asked: () => asked,
  };
}

describe('outbound requests connect to the address that was checked', function () {
  this.timeout(20_000);
  /** the operator's own service on loopback, counting the connections it gets */
  let inside: Server;
  let connections = 0;
  let port: number;
  before(async () => {
    inside = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    port = (inside.address() as AddressInfo).port;
  });
  beforeEach(() => {
    connections = 0;
  });
  after(() => new Promise<void>((resolve) => inside.close(() => resolve())));

  const failureOf = (promise: Promise<unknown>): Promise<Error> =>
    promise.then(
      () => expect.fail('it was fetched'),
      (error: Error) => error,
    );

  it('an eu_av list fetch resolves once and never reaches the rebound address', async () => {
    const dns = rebinding();
    const url = `https://lists.attacker.test:${port}/tsl.xml`;
    const options = { timeoutMs: 1000, allowPrivate: false, accept: 'application/xml', maxBytes: 1000 };
    const error = await failureOf(httpsGet(url, { ...options, resolve: dns.resolve }));
    expect(error).to.be.instanceOf(FetchError);
    expect(dns.asked()).to.equal(1);
    expect(connections).to.equal(0);
    // A second fetch gets the loopback answer, and refuses it before connecting.
    const refused = await failureOf(httpsGet(url, { ...options, resolve: dns.resolve }));
    expect(refused.message).to.equal('could not be fetched (EPRIVATE)');
    expect(connections).to.equal(0);
    for (const failure of [error, refused]) expect(failure.message).not.to.match(/127\.0\.0\.1|93\.184/);
  });

  it("the domain probe resolves once for the webmaster's file and never reaches the rebound address", async () => {
    const dns = rebinding();
    const probe = publicDomainProbe(1000, dns.resolve);
    const file = `https://shop.attacker.test:${port}/.well-known/age-provider.txt`;
    expect(await probe.fetchText(file)).to.equal(undefined);
    expect(await probe.fetchText(file)).to.equal(undefined);
    expect(dns.asked()).to.equal(2);
    expect(connections).to.equal(0);
  });

  it('a webhook delivery error says what failed, never the address inside the network', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const destination = await resolveDestination(`http://hooks.internal.test:${closedPort}/in`, true, async () => [
      { address: '127.0.0.1', family: 4 },
    ]);
    const result = await send(destination, {}, '{}', 2000);
    expect(result).to.deep.equal({ error: 'the connection was refused' });
  });
});
