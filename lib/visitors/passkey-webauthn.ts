import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { NewPasskey } from './passkeys.js';

/**
 * Our WebAuthn relying party: the issuer's host is the RP id and its origin the only origin accepted; every
 * ceremony requires user verification (the passkey is the whole account: no second factor stands behind it).
 */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(issuer: string, name: string): RelyingParty {
  const url = new URL(issuer);
  return { id: url.hostname, origin: url.origin, name };
}

/**
 * Whether passkeys can work at all at this issuer: browsers create and use them only in a secure context (https, or
 * http on localhost and names under .localhost), and WebAuthn refuses an IP address as relying-party id. Elsewhere
 * every ceremony fails, so the pages do not offer them.
 */
export function passkeysWorkAt(issuer: string): boolean {
  const { protocol, hostname } = new URL(issuer);
  if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return false;
  return protocol === 'https:' || hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * The WebAuthn library, loaded on the first passkey ceremony: with its dependencies it weighs megabytes
 * (docs/performance.md "Measurements behind code choices"), which an instance whose visitors never use passkeys
 * should not carry.
 */
const webauthn = () => import('@simplewebauthn/server');

/** What the browser has to finish a ceremony within (the stored challenge lives a little longer). */
const TIMEOUT_MS = 180_000;

/** A fresh WebAuthn user.id for an account that has no passkey yet: random, telling nothing about the visitor. */
export const newUserHandle = (): string => randomBytes(32).toString('base64url');

/**
 * Options for creating a discoverable credential (a passkey) for the account `userHandle`. No attestation is asked
 * for: we trust the signature, not the make of the authenticator. `exclude` keeps a device from saving the same
 * account twice.
 */
export async function registrationOptions(
  rp: RelyingParty,
  input: { userHandle: string; label: string; exclude: ReadonlyArray<Pick<NewPasskey, 'credentialId' | 'transports'>> },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: Buffer.from(input.userHandle, 'base64url'),
    userName: input.label,
    userDisplayName: input.label,
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: input.exclude.map((passkey) => ({
      id: passkey.credentialId,
      transports: passkey.transports as AuthenticatorTransport[],
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

/**
 * Options for signing in with a passkey. Without `allow`, any passkey of ours on the device (the authenticator picks
 * the account: a visitor's sign-in); with it, only those credentials (a webmaster's second factor, who is known).
 */
export async function authenticationOptions(
  rp: RelyingParty,
  allow?: ReadonlyArray<Pick<NewPasskey, 'credentialId' | 'transports'>>,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'required',
    timeout: TIMEOUT_MS,
    ...(allow && {
      allowCredentials: allow.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
    }),
  });
}

/** The new passkey when the browser's answer signs our challenge, for our origin and RP id, with the user verified; else undefined. */
export async function verifyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  ceremony: { challenge: string; userHandle: string },
): Promise<NewPasskey | undefined> {
  const { verifyRegistrationResponse } = await webauthn();
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge: ceremony.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!result?.verified) return undefined;
  const { credential } = result.registrationInfo;
  return {
    credentialId: credential.id,
    userHandle: ceremony.userHandle,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: response.response.transports ?? [],
  };
}

/**
 * The authenticator's new signature counter when the assertion is valid for `passkey`; else undefined. The library
 * refuses a counter that did not go up (a cloned authenticator replaying an older state), unless both are 0
 * (authenticators that keep no counter, as synced passkeys do).
 */
export async function verifyAuthentication(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: NewPasskey,
): Promise<number | undefined> {
  if (response.response.userHandle !== passkey.userHandle) return undefined;
  const { verifyAuthenticationResponse } = await webauthn();
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    credential: {
      id: passkey.credentialId,
      publicKey: passkey.publicKey as Uint8Array<ArrayBuffer>,
      counter: passkey.counter,
      transports: passkey.transports as AuthenticatorTransport[],
    },
  }).catch(() => undefined);
  return result?.verified ? result.authenticationInfo.newCounter : undefined;
}
