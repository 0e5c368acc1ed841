import { Ajv, type ErrorObject, type JSONSchemaType } from 'ajv';
import addFormats from 'ajv-formats';

/** The rules for a new webmaster's credentials, shared by the platform's register form and `age-provider webmaster create`. */
export const WEBMASTER_MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export interface NewCredentials {
  email: string;
  password: string;
}

export const newCredentialsSchema: JSONSchemaType<NewCredentials> = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    password: { type: 'string', minLength: WEBMASTER_MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH },
  },
  required: ['email', 'password'],
  additionalProperties: false,
};

const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv, ['email']);
const validate = ajv.compile(newCredentialsSchema);

export type CredentialProblem = 'email' | 'password';

/** Which fields break the rules (empty when the credentials are acceptable). */
export function checkNewCredentials(input: NewCredentials): CredentialProblem[] {
  if (validate(input)) return [];
  const fields = (validate.errors ?? []).map((error: ErrorObject) => error.instancePath.slice(1) as CredentialProblem);
  return [...new Set(fields)];
}
