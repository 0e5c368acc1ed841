import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';
import type { Context } from 'koa';
import type {} from 'koa-body';

const ajv = new Ajv({ allErrors: false, coerceTypes: false });

/** The hidden CSRF field every form carries (checked by requireCsrf before any handler runs). */
export const CSRF_FIELD = { _csrf: { type: 'string', maxLength: 200 } } as const;

/** Compiles the schema of an HTML form (urlencoded: every field a string) or of other visitor input. */
export const compileSchema = <T>(schema: JSONSchemaType<T>): ValidateFunction<T> => ajv.compile(schema);

/** The posted form when it matches its schema, else undefined (the page re-renders with a message). */
export function readForm<T>(ctx: Context, validate: ValidateFunction<T>): T | undefined {
  const body: unknown = ctx.request.body ?? {};
  return validate(body) ? body : undefined;
}
