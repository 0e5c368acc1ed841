import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Context } from 'koa';

const ajv = new Ajv({ allErrors: false });
addFormats.default(ajv, ['email']);

/** Compiles the schema of one form's fields (urlencoded strings). */
export const formSchema = <T>(schema: JSONSchemaType<T>): ValidateFunction<T> => ajv.compile(schema);

/** The parsed form of this POST, or an empty object; validate it with a formSchema before use. */
export const formFields = (ctx: Context): Record<string, unknown> =>
  ((ctx.request as { body?: unknown }).body ?? {}) as Record<string, unknown>;
