import type { SchemaObject } from 'ajv';
import type { ChangeOrigin } from '../changes.js';
import { websiteActivity } from '../audit/activity.js';
import { auditPageSchema, auditQuerySchema } from '../audit/schemas.js';
import { statisticsQuerySchema, statisticsSchema } from '../statistics/schemas.js';
import { websiteStatistics } from '../statistics/statistics.js';
import { websiteEvidence } from '../evidence/evidence.js';
import { evidencePackSchema, evidenceQuerySchema } from '../evidence/schemas.js';
import { getVerification, listVerifications } from '../verification/listing.js';
import {
  verificationPageSchema,
  verificationQuerySchema,
  verificationSchema,
} from '../verification/listing-schemas.js';
import type { ExternalServices } from './services.js';
import {
  checkDomainVerification,
  createOAuth2Config,
  createWebsite,
  deleteWebsite,
  getDomainVerification,
  getOAuth2Config,
  getWebsite,
  getWebsiteKey,
  getWebsitePolicy,
  listWebsites,
  regenerateOAuth2Credentials,
  regenerateWebsiteKey,
  updateOAuth2Config,
  updateWebsite,
  updateWebsitePolicy,
  type Environment,
  type OAuth2Configuration,
  type OAuth2CreateInput,
  type OAuth2UpdateInput,
  type WebsiteCreateInput,
  type WebsitePolicyInput,
  type WebsiteUpdateInput,
} from '../websites/index.js';
import { domainVerificationSchema } from './schemas/domain-verification.js';
import { websitePolicySchema } from './schemas/policy.js';
import { policyUpdateSchema } from '../policy/schema.js';
import { oauth2CreateSchema } from '../websites/schemas/oauth2-create.js';
import { oauth2UpdateSchema } from '../websites/schemas/oauth2-update.js';
import { oauth2ConfigurationSchema, websiteKeySchema, websiteListSchema, websiteSchema } from './schemas/responses.js';
import { websiteCreateSchema } from '../websites/schemas/website-create.js';
import { websiteUpdateSchema } from '../websites/schemas/website-update.js';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  type WebhookInput,
} from '../webhooks/endpoints.js';
import {
  createdWebhookSchema,
  deliveryListSchema,
  rotatedWebhookSchema,
  webhookCreateSchema,
  webhookListSchema,
  webhookRotationSchema,
  webhookTestSchema,
} from '../webhooks/schemas.js';
import { getWebhookMessage, redeliverMessage } from '../webhooks/inspection.js';
import { webhookMessageSchema, webhookRedeliverySchema } from '../webhooks/inspection-schemas.js';

/** Which path parameters an operation takes. */
export type Scope = 'account' | 'website' | 'environment' | 'webhook' | 'webhookMessage' | 'verification';

/** The typed path values of each scope. */
export interface ScopeValues {
  account: object;
  website: { websiteId: number };
  environment: { websiteId: number; environment: Environment };
  webhook: { websiteId: number; webhookId: number };
  webhookMessage: { websiteId: number; webhookId: number; messageId: string };
  verification: { websiteId: number; verificationId: string };
}

/** One call of an operation; the body is validated by the service it reaches (one schema, shared with the platform). */
export type Call<S extends Scope> = {
  runtime: ExternalServices;
  webmasterId: number;
  origin: ChangeOrigin;
  body: unknown;
  query: unknown;
} & ScopeValues[S];

export interface Operation<S extends Scope = Scope> {
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /**
   * What the key must allow (lib/external/router.ts): `view` any key, `change` a read-write key whose member may change
   * the account's websites (docs/external-api.md "API keys").
   */
  access: 'view' | 'change';
  /** The answer without its secrets, for a key that may not see them (a read-only key): the operations that carry one. */
  withoutSecrets?: (answer: unknown) => unknown;
  /** koa-router path below /external */
  path: string;
  summary: string;
  scope: S;
  /** the JSON body schema, when the operation takes one */
  body?: SchemaObject;
  /** the body may be left out (every field of its schema is optional) */
  bodyOptional?: true;
  /** the query's schema, when the operation reads one (validated by its service) */
  query?: SchemaObject;
  /** the success status: 200 unless said (201 for a creation, 204 for an answer without body) */
  status?: 201 | 204;
  /** the success body's schema (none with 204) */
  response?: SchemaObject;
  run(call: Call<S>): Promise<unknown>;
}

// Erases the scope type parameter so operations of every scope fit one list (the router supplies matching values).
const define = <S extends Scope>(operation: Operation<S>): Operation => operation as unknown as Operation;

/**
 * The ten operations of the specification, in its order, then domain verification, webhooks (docs/webhooks.md), the
 * audit trail (docs/audit.md), statistics (docs/statistics.md), the evidence pack (docs/evidence.md), verifications
 * (docs/verifications.md) and the website's policy (docs/policies.md); the router
 * and openapi.json are both built from this list.
 */
export const OPERATIONS: readonly Operation[] = [
  define({
    operationId: 'listWebsites',
    method: 'get',
    access: 'view',
    path: '/website',
    scope: 'account',
    summary: 'Retrieve all websites',
    response: websiteListSchema,
    run: ({ runtime, webmasterId }) => listWebsites(runtime, webmasterId),
  }),
  define({
    operationId: 'createWebsite',
    method: 'post',
    access: 'change',
    path: '/website',
    scope: 'account',
    summary: 'Create website',
    body: websiteCreateSchema,
    response: websiteSchema,
    run: ({ runtime, webmasterId, body, origin }) =>
      createWebsite(runtime, webmasterId, body as WebsiteCreateInput, origin),
  }),
  define({
    operationId: 'updateWebsite',
    method: 'patch',
    access: 'change',
    path: '/website/:website_id',
    scope: 'website',
    summary: 'Update website',
    body: websiteUpdateSchema,
    response: websiteSchema,
    run: ({ runtime, webmasterId, websiteId, body, origin }) =>
      updateWebsite(runtime, webmasterId, websiteId, body as WebsiteUpdateInput, origin),
  }),
  define({
    operationId: 'deleteWebsite',
    method: 'delete',
    access: 'change',
    path: '/website/:website_id',
    scope: 'website',
    status: 204,
    summary: 'Delete website (its OAuth2 clients stop at once; its audit trail is kept)',
    run: ({ runtime, webmasterId, websiteId, origin }) => deleteWebsite(runtime, webmasterId, websiteId, origin),
  }),
  define({
    operationId: 'getWebsite',
    method: 'get',
    access: 'view',
    path: '/website/:website_id',
    scope: 'website',
    summary: 'Retrieve website',
    response: websiteSchema,
    run: ({ runtime, webmasterId, websiteId }) => getWebsite(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'regenerateWebsiteKey',
    method: 'patch',
    access: 'change',
    path: '/website/:website_id/key/:environment/regenerate',
    scope: 'environment',
    summary: 'Regenerate website keys',
    response: websiteKeySchema,
    run: ({ runtime, webmasterId, websiteId, environment, origin }) =>
      regenerateWebsiteKey(runtime, webmasterId, websiteId, environment, origin),
  }),
  define({
    operationId: 'getWebsiteKey',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/key/:environment',
    scope: 'environment',
    summary: 'Retrieve website keys',
    response: websiteKeySchema,
    run: ({ runtime, webmasterId, websiteId, environment }) =>
      getWebsiteKey(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'createOAuth2',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/oauth2/:environment',
    scope: 'environment',
    summary: 'Create OAuth2',
    body: oauth2CreateSchema,
    response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment, body, origin }) =>
      createOAuth2Config(runtime, webmasterId, websiteId, environment, body as OAuth2CreateInput, origin),
  }),
  define({
    operationId: 'updateOAuth2',
    method: 'patch',
    access: 'change',
    path: '/website/:website_id/oauth2/:environment',
    scope: 'environment',
    summary: 'Update OAuth2',
    body: oauth2UpdateSchema,
    response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment, body, origin }) =>
      updateOAuth2Config(runtime, webmasterId, websiteId, environment, body as OAuth2UpdateInput, origin),
  }),
  define({
    operationId: 'regenerateOAuth2',
    method: 'patch',
    access: 'change',
    path: '/website/:website_id/oauth2/:environment/regenerate',
    scope: 'environment',
    summary: 'Regenerate OAuth2 client id/secret',
    response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment, origin }) =>
      regenerateOAuth2Credentials(runtime, webmasterId, websiteId, environment, origin),
  }),
  define({
    operationId: 'getOAuth2',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/oauth2/:environment',
    scope: 'environment',
    summary: 'Retrieve OAuth2',
    response: oauth2ConfigurationSchema,
    withoutSecrets: (answer) => {
      const { clientSecret: _secret, ...rest } = answer as OAuth2Configuration;
      return rest;
    },
    run: ({ runtime, webmasterId, websiteId, environment }) =>
      getOAuth2Config(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'getDomainVerification',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/domain-verification',
    scope: 'website',
    summary: 'Retrieve domain verification (the token to publish, and whether the domain is verified)',
    response: domainVerificationSchema,
    run: ({ runtime, webmasterId, websiteId }) => getDomainVerification(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'checkDomainVerification',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/domain-verification/check',
    scope: 'website',
    summary: 'Check domain verification now (DNS TXT record or /.well-known/age-provider.txt)',
    response: domainVerificationSchema,
    run: ({ runtime, webmasterId, websiteId, origin }) =>
      checkDomainVerification(runtime, webmasterId, websiteId, origin),
  }),
  define({
    operationId: 'createWebhook',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/webhooks',
    scope: 'website',
    status: 201,
    summary: 'Create webhook (the answer carries its signing secret, shown this once)',
    body: webhookCreateSchema,
    response: createdWebhookSchema,
    run: ({ runtime, webmasterId, websiteId, body, origin }) =>
      createWebhook(runtime, webmasterId, websiteId, body as WebhookInput, origin),
  }),
  define({
    operationId: 'listWebhooks',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/webhooks',
    scope: 'website',
    summary: 'Retrieve webhooks (without their secrets)',
    response: webhookListSchema,
    run: ({ runtime, webmasterId, websiteId }) => listWebhooks(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'deleteWebhook',
    method: 'delete',
    access: 'change',
    path: '/website/:website_id/webhooks/:webhook_id',
    scope: 'webhook',
    status: 204,
    summary: 'Delete webhook (its undelivered messages too)',
    run: ({ runtime, webmasterId, websiteId, webhookId, origin }) =>
      deleteWebhook(runtime, webmasterId, websiteId, webhookId, origin),
  }),
  define({
    operationId: 'listWebhookDeliveries',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/webhooks/:webhook_id/deliveries',
    scope: 'webhook',
    summary: 'Retrieve the newest delivery attempts (time, status, duration, next retry)',
    response: deliveryListSchema,
    run: ({ runtime, webmasterId, websiteId, webhookId }) => listDeliveries(runtime, webmasterId, websiteId, webhookId),
  }),
  define({
    operationId: 'testWebhook',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/webhooks/:webhook_id/test',
    scope: 'webhook',
    summary: 'Send a webhook.test message (delivered in the background)',
    response: webhookTestSchema,
    run: ({ runtime, webmasterId, websiteId, webhookId }) => testWebhook(runtime, webmasterId, websiteId, webhookId),
  }),
  define({
    operationId: 'rotateWebhookSecret',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/webhooks/:webhook_id/rotate-secret',
    scope: 'webhook',
    summary:
      'Rotate the signing secret: the answer carries the new one, shown this once; the replaced one keeps signing beside it until previousSecretExpiresAt (overlapHours, 24 by default)',
    body: webhookRotationSchema,
    bodyOptional: true,
    response: rotatedWebhookSchema,
    run: ({ runtime, webmasterId, websiteId, webhookId, body, origin }) =>
      rotateWebhookSecret(runtime, webmasterId, websiteId, webhookId, body, origin),
  }),
  define({
    operationId: 'getWebhookMessage',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/webhooks/:webhook_id/messages/:message_id',
    scope: 'webhookMessage',
    summary:
      "Retrieve one message by its webhook-id with every attempt: the body sent, the receiver's status, the first KiB of its answer, timing, the error",
    response: webhookMessageSchema,
    run: ({ runtime, webmasterId, websiteId, webhookId, messageId }) =>
      getWebhookMessage(runtime, webmasterId, websiteId, webhookId, messageId),
  }),
  define({
    operationId: 'redeliverWebhookMessage',
    method: 'post',
    access: 'change',
    path: '/website/:website_id/webhooks/:webhook_id/messages/:message_id/redeliver',
    scope: 'webhookMessage',
    summary:
      'Send a message again now, with the same webhook-id (delivered, given up or waiting for a retry; a double submit queues one attempt)',
    response: webhookRedeliverySchema,
    run: ({ runtime, webmasterId, websiteId, webhookId, messageId }) =>
      redeliverMessage(runtime, webmasterId, websiteId, webhookId, messageId),
  }),
  define({
    operationId: 'listAudit',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/audit',
    scope: 'website',
    summary: "Retrieve the website's audit trail, newest first, by pages (who changed what, when, from where)",
    query: auditQuerySchema,
    response: auditPageSchema,
    run: ({ runtime, webmasterId, websiteId, query }) => websiteActivity(runtime, webmasterId, websiteId, query),
  }),
  define({
    operationId: 'getStatistics',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/statistics',
    scope: 'website',
    summary:
      "Retrieve the website's daily statistics per environment (started, passed, refused, abandoned, reused, by challenge, by country and subdivision, the funnel by step, median seconds to result)",
    query: statisticsQuerySchema,
    response: statisticsSchema,
    run: ({ runtime, webmasterId, websiteId, query }) => websiteStatistics(runtime, webmasterId, websiteId, query),
  }),
  define({
    operationId: 'getEvidence',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/evidence',
    scope: 'website',
    summary:
      "Retrieve the website's evidence pack for a period: one signed document (statistics per day, the rules in force, the audit chain segment with its heads, the eu_av trust, the retention settings), checkable offline (docs/evidence.md)",
    query: evidenceQuerySchema,
    response: evidencePackSchema,
    run: ({ runtime, webmasterId, websiteId, query }) => websiteEvidence(runtime, webmasterId, websiteId, query),
  }),
  define({
    operationId: 'listVerifications',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/verifications',
    scope: 'website',
    summary:
      "Retrieve the website's verifications one by one, and the flows that ended without one, newest first, by pages (filters: from, to, environment, challenge, outcome, country)",
    query: verificationQuerySchema,
    response: verificationPageSchema,
    run: ({ runtime, webmasterId, websiteId, query }) => listVerifications(runtime, webmasterId, websiteId, query),
  }),
  define({
    operationId: 'getVerification',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/verifications/:verification_id',
    scope: 'verification',
    summary: 'Retrieve one verification by the uid the website received from Resources (test_…, vrf_…)',
    response: verificationSchema,
    run: ({ runtime, webmasterId, websiteId, verificationId }) =>
      getVerification(runtime, webmasterId, websiteId, verificationId),
  }),
  define({
    operationId: 'getWebsitePolicy',
    method: 'get',
    access: 'view',
    path: '/website/:website_id/policy',
    scope: 'website',
    summary:
      "Retrieve the website's policy: its own rules, the presets in force, and the rule in force in each region named anywhere",
    response: websitePolicySchema,
    run: ({ runtime, webmasterId, websiteId }) => getWebsitePolicy(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'updateWebsitePolicy',
    method: 'put',
    access: 'change',
    path: '/website/:website_id/policy',
    scope: 'website',
    summary: "Replace the website's own rules (they may only tighten the operator's presets)",
    body: policyUpdateSchema,
    response: websitePolicySchema,
    run: ({ runtime, webmasterId, websiteId, body, origin }) =>
      updateWebsitePolicy(runtime, webmasterId, websiteId, body as WebsitePolicyInput, origin),
  }),
];
