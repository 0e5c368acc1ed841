import { expect } from 'chai';
import { addressGroup } from '../../lib/security/address-group.js';
import { normalizeIdentifier } from '../../lib/security/identifiers.js';

describe('security: one form per identifier, one bucket per network', () => {
  it('normalises with NFKC, then full case folding, without the spaces around', () => {
    expect(normalizeIdentifier('  Owner@Example.TEST ')).to.equal('owner@example.test');
    expect(normalizeIdentifier('ＯＷＮＥＲ')).to.equal('owner'); // fullwidth, NFKC
    expect(normalizeIdentifier('ﬁle')).to.equal('file'); // ligature, NFKC
    expect(normalizeIdentifier('Straße')).to.equal(normalizeIdentifier('STRASSE'));
    expect(normalizeIdentifier('ΣΑΣ')).to.equal('σασ'); // no final-sigma context
    expect(normalizeIdentifier('\u212Aelvin')).to.equal('kelvin'); // KELVIN SIGN
  });

  it('keeps U+0130 apart from i, as case folding does (i + U+0307), so it is another identifier in lookups and limits alike', () => {
    expect(normalizeIdentifier('\u0130')).to.equal('i\u0307');
    expect(normalizeIdentifier('own\u0130r')).not.to.equal(normalizeIdentifier('owner'));
    expect(normalizeIdentifier('\u0131')).not.to.equal('i'); // dotless i folds to itself
  });

  it('groups IPv6 addresses by /64 and IPv4-mapped addresses with their IPv4 address', () => {
    expect(addressGroup('203.0.113.9')).to.equal('203.0.113.9');
    expect(addressGroup('::ffff:203.0.113.9')).to.equal('203.0.113.9');
    expect(addressGroup('2001:db8:1:2:3:4:5:6')).to.equal('2001:db8:1:2::/64');
    expect(addressGroup('2001:0DB8:0001:0002::9')).to.equal('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
  });
});
