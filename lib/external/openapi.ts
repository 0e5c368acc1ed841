import type { SchemaObject } from 'ajv';
import { OPERATIONS, type Operation } from './operations.js';
import { errorSchema } from './schemas/responses.js';
import {
  environmentParameter,
  verificationIdParameter,
  webhookIdParameter,
  webhookMessageIdParameter,
  websiteIdParameter,
} from '../websites/schemas/path-parameters.js';
import { BODY_LIMIT_KIB, EXTERNAL_PREFIX } from './paths.js';

const ERROR_RESPONSES: Record<string, string> = {
  400: 'Invalid path parameter or body, or the request cannot be served (e.g. regenerate while DISABLED).',
  401: 'Missing, malformed, invalid or revoked API token, or the website belongs to another webmaster.',
  404: "No such website, OAuth2 configuration, webhook, webhook message or verification (another website's is not found either).",
  413: `Body larger than ${BODY_LIMIT_KIB} KiB.`,
  415: 'Body sent with a content type other than application/json.',
  429: 'Rate limit reached; retry after the seconds in Retry-After.',
  500: 'Unexpected server error.',
};

const reference = (schema: SchemaObject): { $ref: string } => ({
  $ref: `#/components/schemas/${String(schema.title)}`,
});

const toOpenApiPath = (path: string): string => `${EXTERNAL_PREFIX}${path.replace(/:(\w+)/g, '{$1}')}`;

/** The query's parameters, from its schema (every one optional). */
const queryParameters = (operation: Operation): object[] =>
  Object.entries((operation.query?.properties ?? {}) as Record<string, { description?: string }>).map(
    ([name, schema]) => ({ name, in: 'query', required: false, schema, description: schema.description }),
  );

function parameters(operation: Operation): object[] {
  return [...pathParameters(operation), ...queryParameters(operation)];
}

function pathParameters(operation: Operation): object[] {
  const websiteId = {
    name: 'website_id',
    in: 'path',
    required: true,
    schema: websiteIdParameter,
    description: websiteIdParameter.description,
  };
  const environment = {
    name: 'environment',
    in: 'path',
    required: true,
    schema: environmentParameter,
    description: environmentParameter.description,
  };
  const webhookId = {
    name: 'webhook_id',
    in: 'path',
    required: true,
    schema: webhookIdParameter,
    description: webhookIdParameter.description,
  };
  if (operation.scope === 'account') return [];
  if (operation.scope === 'webhook') return [websiteId, webhookId];
  if (operation.scope === 'webhookMessage') {
    return [
      websiteId,
      webhookId,
      {
        name: 'message_id',
        in: 'path',
        required: true,
        schema: webhookMessageIdParameter,
        description: webhookMessageIdParameter.description,
      },
    ];
  }
  if (operation.scope === 'verification') {
    return [
      websiteId,
      {
        name: 'verification_id',
        in: 'path',
        required: true,
        schema: verificationIdParameter,
        description: verificationIdParameter.description,
      },
    ];
  }
  return operation.scope === 'website' ? [websiteId] : [websiteId, environment];
}

function describe(operation: Operation): object {
  const errors = [
    '400',
    '401',
    ...(operation.scope === 'account' ? [] : ['404']),
    ...(operation.body ? ['413', '415'] : []),
    '429',
    '500',
  ];
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    parameters: parameters(operation),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.bodyOptional !== true,
            content: { 'application/json': { schema: reference(operation.body) } },
          },
        }
      : {}),
    responses: {
      [operation.status ?? 200]: operation.response
        ? {
            description: 'Request successful.',
            content: { 'application/json': { schema: reference(operation.response) } },
          }
        : { description: 'Request successful; no body.' },
      ...Object.fromEntries(
        errors.map((status) => [
          status,
          {
            description: ERROR_RESPONSES[status],
            content: { 'application/json': { schema: reference(errorSchema) } },
          },
        ]),
      ),
    },
  };
}

/** OpenAPI 3.1 generated from the operation list and the very schemas that validate requests. */
export function openApiDocument(): object {
  const schemas = [
    errorSchema,
    ...OPERATIONS.flatMap((operation) => [
      ...(operation.response ? [operation.response] : []),
      ...(operation.body ? [operation.body] : []),
    ]),
  ];
  const paths: Record<string, Record<string, object>> = {};
  for (const operation of OPERATIONS) {
    (paths[toOpenApiPath(operation.path)] ??= {})[operation.method] = describe(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'age-provider Webmaster External API',
      version: '1',
      description:
        'Manage websites, their public keys, their OAuth2 configurations and their webhooks. See docs/external-api.md and docs/webhooks.md.',
    },
    security: [{ apiToken: [] }],
    paths,
    components: {
      securitySchemes: {
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The API token (avk_...) generated on the webmasters platform or with `age-provider webmaster token`.',
        },
      },
      schemas: Object.fromEntries(schemas.map((schema) => [String(schema.title), schema])),
    },
  };
}
