import type { SchemaObject } from 'ajv';
import type { Runtime } from '../runtime.js';
import {
  checkDomainVerification, createOAuth2Config, createWebsite, getDomainVerification, getOAuth2Config, getWebsite, getWebsiteKey, getWebsitePolicy, listWebsites,
  regenerateOAuth2Credentials, regenerateWebsiteKey, updateOAuth2Config, updateWebsite, updateWebsitePolicy,
  type Environment, type OAuth2CreateInput, type OAuth2UpdateInput, type WebsiteCreateInput, type WebsitePolicyInput, type WebsiteUpdateInput,
} from '../websites/index.js';
import { domainVerificationSchema } from './schemas/domain-verification.js';
import { websitePolicySchema } from './schemas/policy.js';
import { policyUpdateSchema } from '../policy/schema.js';
import { oauth2CreateSchema } from '../websites/schemas/oauth2-create.js';
import { oauth2UpdateSchema } from '../websites/schemas/oauth2-update.js';
import { oauth2ConfigurationSchema, websiteKeySchema, websiteListSchema, websiteSchema } from './schemas/responses.js';
import { websiteCreateSchema } from '../websites/schemas/website-create.js';
import { websiteUpdateSchema } from '../websites/schemas/website-update.js';

/** Which path parameters an operation takes. */
export type Scope = 'account' | 'website' | 'environment';

/** The typed path values of each scope. */
export interface ScopeValues {
  account: object;
  website: { websiteId: number };
  environment: { websiteId: number; environment: Environment };
}

/** One call of an operation; the body is validated by the service it reaches (one schema, shared with the platform). */
export type Call<S extends Scope> = { runtime: Runtime; webmasterId: number; body: unknown } & ScopeValues[S];

export interface Operation<S extends Scope = Scope> {
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'put';
  /** koa-router path below /external */
  path: string;
  summary: string;
  scope: S;
  /** the JSON body schema, when the operation takes one */
  body?: SchemaObject;
  response: SchemaObject;
  run(call: Call<S>): Promise<unknown>;
}

// Erases the scope type parameter so operations of every scope fit one list (the router supplies matching values).
const define = <S extends Scope>(operation: Operation<S>): Operation => operation as unknown as Operation;

/**
 * The ten operations of the specification, in its order, then the domain verification pair and the website's policy
 * pair (docs/policies.md); the router and openapi.json are both built from this list.
 */
export const OPERATIONS: readonly Operation[] = [
  define({
    operationId: 'listWebsites', method: 'get', path: '/website', scope: 'account', summary: 'Retrieve all websites',
    response: websiteListSchema,
    run: ({ runtime, webmasterId }) => listWebsites(runtime, webmasterId),
  }),
  define({
    operationId: 'createWebsite', method: 'post', path: '/website', scope: 'account', summary: 'Create website',
    body: websiteCreateSchema, response: websiteSchema,
    run: ({ runtime, webmasterId, body }) => createWebsite(runtime, webmasterId, body as WebsiteCreateInput),
  }),
  define({
    operationId: 'updateWebsite', method: 'patch', path: '/website/:website_id', scope: 'website', summary: 'Update website',
    body: websiteUpdateSchema, response: websiteSchema,
    run: ({ runtime, webmasterId, websiteId, body }) => updateWebsite(runtime, webmasterId, websiteId, body as WebsiteUpdateInput),
  }),
  define({
    operationId: 'getWebsite', method: 'get', path: '/website/:website_id', scope: 'website', summary: 'Retrieve website',
    response: websiteSchema,
    run: ({ runtime, webmasterId, websiteId }) => getWebsite(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'regenerateWebsiteKey', method: 'patch', path: '/website/:website_id/key/:environment/regenerate', scope: 'environment',
    summary: 'Regenerate website keys', response: websiteKeySchema,
    run: ({ runtime, webmasterId, websiteId, environment }) => regenerateWebsiteKey(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'getWebsiteKey', method: 'get', path: '/website/:website_id/key/:environment', scope: 'environment',
    summary: 'Retrieve website keys', response: websiteKeySchema,
    run: ({ runtime, webmasterId, websiteId, environment }) => getWebsiteKey(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'createOAuth2', method: 'post', path: '/website/:website_id/oauth2/:environment', scope: 'environment',
    summary: 'Create OAuth2', body: oauth2CreateSchema, response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment, body }) =>
      createOAuth2Config(runtime, webmasterId, websiteId, environment, body as OAuth2CreateInput),
  }),
  define({
    operationId: 'updateOAuth2', method: 'patch', path: '/website/:website_id/oauth2/:environment', scope: 'environment',
    summary: 'Update OAuth2', body: oauth2UpdateSchema, response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment, body }) =>
      updateOAuth2Config(runtime, webmasterId, websiteId, environment, body as OAuth2UpdateInput),
  }),
  define({
    operationId: 'regenerateOAuth2', method: 'patch', path: '/website/:website_id/oauth2/:environment/regenerate', scope: 'environment',
    summary: 'Regenerate OAuth2 client id/secret', response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment }) => regenerateOAuth2Credentials(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'getOAuth2', method: 'get', path: '/website/:website_id/oauth2/:environment', scope: 'environment',
    summary: 'Retrieve OAuth2', response: oauth2ConfigurationSchema,
    run: ({ runtime, webmasterId, websiteId, environment }) => getOAuth2Config(runtime, webmasterId, websiteId, environment),
  }),
  define({
    operationId: 'getDomainVerification', method: 'get', path: '/website/:website_id/domain-verification', scope: 'website',
    summary: 'Retrieve domain verification (the token to publish, and whether the domain is verified)', response: domainVerificationSchema,
    run: ({ runtime, webmasterId, websiteId }) => getDomainVerification(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'checkDomainVerification', method: 'post', path: '/website/:website_id/domain-verification/check', scope: 'website',
    summary: 'Check domain verification now (DNS TXT record or /.well-known/age-provider.txt)', response: domainVerificationSchema,
    run: ({ runtime, webmasterId, websiteId }) => checkDomainVerification(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'getWebsitePolicy', method: 'get', path: '/website/:website_id/policy', scope: 'website',
    summary: 'Retrieve the website\'s policy: its own rules, the presets in force, and the rule in force in each region named anywhere',
    response: websitePolicySchema,
    run: ({ runtime, webmasterId, websiteId }) => getWebsitePolicy(runtime, webmasterId, websiteId),
  }),
  define({
    operationId: 'updateWebsitePolicy', method: 'put', path: '/website/:website_id/policy', scope: 'website',
    summary: 'Replace the website\'s own rules (they may only tighten the operator\'s presets)', body: policyUpdateSchema, response: websitePolicySchema,
    run: ({ runtime, webmasterId, websiteId, body }) => updateWebsitePolicy(runtime, webmasterId, websiteId, body as WebsitePolicyInput),
  }),
];
