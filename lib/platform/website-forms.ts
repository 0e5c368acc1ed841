import type { SchemaObject } from 'ajv';
import { NAME_MAX_LENGTH, REDIRECT_URIS_MAX } from '../websites/schemas/fields.js';
import { oauth2CreateSchema } from '../websites/schemas/oauth2-create.js';
import { oauth2UpdateSchema } from '../websites/schemas/oauth2-update.js';
import { websiteCreateSchema } from '../websites/schemas/website-create.js';
import { websiteUpdateSchema } from '../websites/schemas/website-update.js';
import { conforms } from '../websites/validation.js';
import { listField, textField } from '../http/form.js';
import type {
  OAuth2CreateInput,
  OAuth2UpdateInput,
  WebsiteCreateInput,
  WebsiteUpdateInput,
} from '../websites/index.js';

/**
 * Form posts become the External API's request bodies, so the website services apply one set of rules to both.
 * Before calling a service, each field is checked alone against its own part of the same body schema: the page can
 * then show every problem next to its field (the service still validates the whole body, and its answer wins).
 */

type MessageParams = Record<string, string | number>;

/** A problem to show next to a field: a catalogue key and its parameters, or one set of parameters per bad item. */
export interface FieldError {
  key: string;
  params: MessageParams;
  /** the message once per item (every rejected redirect URI, not only the first) */
  each?: MessageParams[];
}
export type FieldErrors = Record<string, FieldError>;

export interface ParsedForm<T> {
  input: T;
  errors: FieldErrors;
}

type Check = (value: unknown) => boolean;

/** One check per property of a body schema. */
const checksOf = (schema: { properties: Record<string, SchemaObject> }): Record<string, Check> =>
  Object.fromEntries(Object.entries(schema.properties).map(([field, fieldSchema]) => [field, conforms(fieldSchema)]));

const websiteCreateChecks = checksOf(websiteCreateSchema);
const websiteUpdateChecks = checksOf(websiteUpdateSchema);
const oauth2CreateChecks = checksOf(oauth2CreateSchema);
const oauth2UpdateChecks = checksOf(oauth2UpdateSchema);
const redirectUriCheck = conforms(oauth2CreateSchema.properties.redirectUris.items);

const FIELD_ERRORS: Record<string, FieldError> = {
  name: { key: 'platform.website.error.name', params: { max: NAME_MAX_LENGTH } },
  domain: { key: 'platform.website.error.domain', params: {} },
  language: { key: 'platform.website.error.language', params: {} },
  challenges: { key: 'platform.website.error.challenges', params: {} },
  regions: { key: 'platform.website.error.regions', params: {} },
  redirectUris: { key: 'platform.oauth2.error.redirectUris', params: { max: REDIRECT_URIS_MAX } },
  status: { key: 'platform.oauth2.error.status', params: {} },
};

function problemOf(field: string, value: unknown): FieldError {
  if (field === 'redirectUris' && Array.isArray(value)) {
    const rejected = value.filter((uri) => !redirectUriCheck(uri)).map((uri) => ({ uri: String(uri) }));
    if (rejected.length > 0) return { key: 'platform.oauth2.error.redirectUri', params: rejected[0]!, each: rejected };
  }
  return FIELD_ERRORS[field]!;
}

function checkFields<T extends object>(input: T, checks: Record<string, Check>): ParsedForm<T> {
  const errors: FieldErrors = {};
  for (const [field, value] of Object.entries(input)) {
    if (!checks[field]!(value)) errors[field] = problemOf(field, value);
  }
  return { input, errors };
}

/** Items typed one per line or separated by commas or spaces. */
const splitList = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** Redirect URIs, one per line (the textarea of the OAuth2 forms). */
const splitLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

const websiteFields = (body: unknown) => ({
  name: textField(body, 'name'),
  language: textField(body, 'language'),
  challenges: listField(body, 'challenges'),
  regions: splitList(textField(body, 'regions')),
});

export const websiteCreateForm = (body: unknown): ParsedForm<WebsiteCreateInput> =>
  checkFields({ ...websiteFields(body), domain: textField(body, 'domain').trim() }, websiteCreateChecks);

export const websiteUpdateForm = (body: unknown): ParsedForm<WebsiteUpdateInput> =>
  checkFields(websiteFields(body), websiteUpdateChecks);

export const oauth2CreateForm = (body: unknown): ParsedForm<OAuth2CreateInput> =>
  checkFields({ redirectUris: splitLines(textField(body, 'redirectUris')) }, oauth2CreateChecks);

export const oauth2UpdateForm = (body: unknown): ParsedForm<OAuth2UpdateInput> =>
  checkFields(
    { status: textField(body, 'status'), redirectUris: splitLines(textField(body, 'redirectUris')) },
    oauth2UpdateChecks,
  );
