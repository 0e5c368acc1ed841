import { expect } from 'chai';
import { isPrivateAddress } from '../../lib/security/private-addresses.js';

describe('outbound address filter: IANA special-purpose ranges', () => {
  it('refuses special-purpose IPv4 space (private, loopback, metadata, documentation, benchmarking, broadcast)', () => {
    for (const address of ['10.0.0.1', '127.0.0.1', '169.254.169.254', '192.0.2.1', '198.18.0.1', '255.255.255.255']) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
  });

  it('refuses IPv6 outside global unicast and the special blocks inside it, in any spelling', () => {
    const refused = ['::1', '::', 'fc00::1', 'fe80::1', '2001:db8::1', '2002::1', '64:ff9b::a00:1'];
    for (const address of [...refused, '::ffff:10.0.0.1', '::ffff:8.8.8.8', '0:0:0:0:0:FFFF:0A00:0001']) {
      expect(isPrivateAddress(address), address).to.equal(true);
    }
  });

  it('refuses what is not an address and lets public unicast through', () => {
    expect(isPrivateAddress('not-an-ip')).to.equal(true);
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      expect(isPrivateAddress(address), address).to.equal(false);
    }
  });
});
