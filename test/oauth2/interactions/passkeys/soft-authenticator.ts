import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software authenticator for server-side tests: makes the WebAuthn answers our browser script posts (ES256, no
 * attestation), with knobs a real authenticator does not have (no user verification, a chosen counter, another
 * origin, a chosen credential id). The browser tests use Chromium's virtual authenticator instead.
 */
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

interface Options {
  origin: string;
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentialId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  userHandle = '';
  counter = 0;

  constructor(credentialId: Buffer = randomBytes(32)) {
    this.credentialId = credentialId;
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  }

  private authData(rpId: string, flags: number, extra: Uint8Array = new Uint8Array()): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, extra]);
  }

  /** The answer to registration options, as posted in `response`. */
  create(
    options: { challenge: string; rp: { id: string }; user: { id: string } },
    { origin, userVerified = true }: Options,
  ): string {
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, this.credentialId, cose]);
    const authData = this.authData(options.rp.id, UP | AT | (userVerified ? UV : 0), attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    const clientData = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    return JSON.stringify({
      id: b64(this.credentialId),
      rawId: b64(this.credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64(Buffer.from(clientData)),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
    });
  }

  /** The answer to authentication options (the counter goes up first, as an authenticator's does). */
  get(
    options: { challenge: string; rpId: string },
    { origin, userVerified = true }: Options,
    userHandle = this.userHandle,
  ): string {
    this.counter += 1;
    const authData = this.authData(options.rpId, UP | (userVerified ? UV : 0));
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return JSON.stringify({
      id: b64(this.credentialId),
      rawId: b64(this.credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64(clientData),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle,
      },
    });
  }
}
