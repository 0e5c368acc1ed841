import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { JSONSchemaType } from 'ajv';
import { compileSchema } from '../http/form.js';

/**
 * What our browser script (views/static/passkeys.js) posts as the `response` field: the credential the browser
 * created or used, every binary value base64url. Checked here before the WebAuthn library reads it.
 */
const BASE64URL = { type: 'string', pattern: '^[A-Za-z0-9_-]*$', maxLength: 8192 } as const;
const SHORT = { type: 'string', maxLength: 64 } as const;

interface RegistrationPost {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports?: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment?: string;
}

interface AuthenticationPost {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment?: string;
}

const credentialFields = {
  id: { ...BASE64URL, minLength: 16, maxLength: 1024 },
  rawId: { ...BASE64URL, minLength: 16, maxLength: 1024 },
  type: { type: 'string', const: 'public-key' },
  // Extension outputs are not used; the script sends none.
  clientExtensionResults: { type: 'object', required: [], additionalProperties: false },
  authenticatorAttachment: { ...SHORT, nullable: true },
} as const;

/** A credential's JSON whose `response` holds exactly `responseProperties`, the `required` ones always. */
const credentialSchema = (required: string[], responseProperties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: ['id', 'rawId', 'type', 'response', 'clientExtensionResults'],
  properties: {
    ...credentialFields,
    response: { type: 'object', additionalProperties: false, required, properties: responseProperties },
  },
});

const validateRegistration = compileSchema<RegistrationPost>(
  credentialSchema(['clientDataJSON', 'attestationObject'], {
    clientDataJSON: BASE64URL,
    attestationObject: BASE64URL,
    transports: { type: 'array', items: SHORT, maxItems: 8, nullable: true },
  }) as unknown as JSONSchemaType<RegistrationPost>,
);

const validateAuthentication = compileSchema<AuthenticationPost>(
  credentialSchema(['clientDataJSON', 'authenticatorData', 'signature', 'userHandle'], {
    clientDataJSON: BASE64URL,
    authenticatorData: BASE64URL,
    signature: BASE64URL,
    userHandle: { ...BASE64URL, minLength: 1, maxLength: 128 },
  }) as unknown as JSONSchemaType<AuthenticationPost>,
);

function parsed(text: unknown): unknown {
  if (typeof text !== 'string' || text.length > 32_768) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The posted registration when it has the expected shape; else undefined. */
export function readRegistration(text: unknown): RegistrationResponseJSON | undefined {
  const value = parsed(text);
  return validateRegistration(value) ? (value as unknown as RegistrationResponseJSON) : undefined;
}

/** The posted assertion when it has the expected shape (a discoverable credential always returns its user handle); else undefined. */
export function readAuthentication(text: unknown): AuthenticationResponseJSON | undefined {
  const value = parsed(text);
  return validateAuthentication(value) ? (value as unknown as AuthenticationResponseJSON) : undefined;
}
