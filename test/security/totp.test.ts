import { expect } from 'chai';
import * as OTPAuth from 'otpauth';
import { randomBytes } from 'node:crypto';
import {
  base32,
  hotp,
  matchTotp,
  newTotpSecret,
  otpauthUri,
  totpAt,
  totpStep,
  type TotpAlgorithm,
} from '../../lib/security/totp.js';

// RFC 6238 Appendix B: the seeds are the ASCII strings below, 8 digits, T0 = 0, X = 30.
const SEEDS: Record<TotpAlgorithm, Buffer> = {
  sha1: Buffer.from('12345678901234567890', 'ascii'),
  sha256: Buffer.from('12345678901234567890123456789012', 'ascii'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii'),
};
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238) with node:crypto', () => {
  it('gives every test vector of RFC 6238 Appendix B, for SHA-1, SHA-256 and SHA-512', () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      const at = new Date(seconds * 1000);
      expect(totpAt(SEEDS.sha1, at, 8, 'sha1'), `${seconds} sha1`).to.equal(sha1);
      expect(totpAt(SEEDS.sha256, at, 8, 'sha256'), `${seconds} sha256`).to.equal(sha256);
      expect(totpAt(SEEDS.sha512, at, 8, 'sha512'), `${seconds} sha512`).to.equal(sha512);
    }
  });

  it('gives the HOTP values of RFC 4226 Appendix D', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotp(SEEDS.sha1, counter))).to.deep.equal(expected);
  });

  it('agrees with an independent implementation (otpauth) on random secrets and times, and on the base32 and URI it reads', () => {
    for (let n = 0; n < 200; n++) {
      const secret = randomBytes(20);
      const at = new Date(Math.floor(Math.random() * 4_000_000_000) * 1000);
      const theirs = new OTPAuth.TOTP({
        secret: OTPAuth.Secret.fromBase32(base32(secret)),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      });
      expect(totpAt(secret, at)).to.equal(theirs.generate({ timestamp: at.getTime() }));
    }
    const secret = newTotpSecret();
    const parsed = OTPAuth.URI.parse(otpauthUri('Age Provider', 'owner@example.test', secret)) as OTPAuth.TOTP;
    expect(Buffer.from(parsed.secret.bytes).equals(secret)).to.equal(true);
    expect([parsed.issuer, parsed.label, parsed.digits, parsed.period, parsed.algorithm]).to.deep.equal([
      'Age Provider',
      'owner@example.test',
      6,
      30,
      'SHA1',
    ]);
  });

  it('accepts the code of the step before and after now, and no other; answers the step matched', () => {
    const secret = newTotpSecret();
    const now = new Date();
    const step = totpStep(now);
    for (const offset of [-1, 0, 1])
      expect(matchTotp(secret, hotp(secret, step + offset), now)).to.equal(step + offset);
    for (const offset of [-3, -2, 2, 3]) {
      const code = hotp(secret, step + offset);
      // A code of a far step can equal a near one by chance (1 in 10^6): only then is it accepted.
      if (![-1, 0, 1].some((near) => hotp(secret, step + near) === code))
        expect(matchTotp(secret, code, now)).to.equal(undefined);
    }
    expect(matchTotp(secret, '12345', now)).to.equal(undefined);
  });
});
