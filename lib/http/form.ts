import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Context } from 'koa';
import type {} from 'koa-body';

const ajv = new Ajv({ allErrors: false, coerceTypes: false });
// Only `email`: a form asking for an address checks its shape before anything is sent to it.
addFormats.default(ajv, ['email']);

/** The hidden CSRF field every form carries (checked by requireCsrf before any handler runs). */
export const CSRF_FIELD = { _csrf: { type: 'string', maxLength: 200 } } as const;

/** Compiles the schema of an HTML form (urlencoded: every field a string) or of other visitor input. */
export const compileSchema = <T>(schema: JSONSchemaType<T>): ValidateFunction<T> => ajv.compile(schema);

/** The posted form when it matches its schema, else undefined (the page re-renders with a message). */
export function readForm<T>(ctx: Context, validate: ValidateFunction<T>): T | undefined {
  const body: unknown = ctx.request.body ?? {};
  return validate(body) ? body : undefined;
}

/** One text field of a parsed form: a repeated or missing field reads as empty. */
export function textField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** Every value of a repeatable field (checkboxes), in order. */
export function listField(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
