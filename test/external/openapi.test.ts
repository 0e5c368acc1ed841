import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { conforms, isRedirectUri, isWebsiteDomain } from '../../lib/websites/validation.js';
import { useApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';
import { everyOperation, request, send } from './api.js';

interface OpenApiOperation {
  operationId: string;
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
}

/** The specification's ten operations, as written there. */
const SPEC_OPERATIONS = [
  'get /external/website',
  'post /external/website',
  'patch /external/website/{website_id}',
  'get /external/website/{website_id}',
  'patch /external/website/{website_id}/key/{environment}/regenerate',
  'get /external/website/{website_id}/key/{environment}',
  'post /external/website/{website_id}/oauth2/{environment}',
  'patch /external/website/{website_id}/oauth2/{environment}',
  'patch /external/website/{website_id}/oauth2/{environment}/regenerate',
  'get /external/website/{website_id}/oauth2/{environment}',
];
/** Beyond those: domain verification. */
const DOMAIN_OPERATIONS = [
  'get /external/website/{website_id}/domain-verification',
  'post /external/website/{website_id}/domain-verification/check',
];
/** Beyond the specification's ten: the website's policy (docs/policies.md). */
const POLICY_OPERATIONS = ['get /external/website/{website_id}/policy', 'put /external/website/{website_id}/policy'];
/** Beyond the specification's ten: webhooks (docs/webhooks.md). */
const WEBHOOK_OPERATIONS = [
  'post /external/website/{website_id}/webhooks',
  'get /external/website/{website_id}/webhooks',
  'delete /external/website/{website_id}/webhooks/{webhook_id}',
  'get /external/website/{website_id}/webhooks/{webhook_id}/deliveries',
  'post /external/website/{website_id}/webhooks/{webhook_id}/test',
  'get /external/website/{website_id}/webhooks/{webhook_id}/messages/{message_id}',
  'post /external/website/{website_id}/webhooks/{webhook_id}/messages/{message_id}/redeliver',
  'post /external/website/{website_id}/webhooks/{webhook_id}/rotate-secret',
];
/**
 * Beyond the specification's ten: the audit trail (docs/audit.md), the statistics (docs/statistics.md) and the
 * evidence pack (docs/evidence.md).
 */
const AUDIT_OPERATIONS = [
  'get /external/website/{website_id}/audit',
  'get /external/website/{website_id}/statistics',
  'get /external/website/{website_id}/evidence',
];
/** Beyond the specification's ten: the verifications one by one (docs/verifications.md). */
const VERIFICATION_OPERATIONS = [
  'get /external/website/{website_id}/verifications',
  'get /external/website/{website_id}/verifications/{verification_id}',
];
/** Beyond the specification's ten: deleting a website (docs/external-api.md "Deleting a website"). */
const WAY_OUT_OPERATIONS = ['delete /external/website/{website_id}'];
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

describe('External API: openapi.json', () => {
  const app = useApp();
  let webmaster: WebmasterFixture;
  let document: OpenApiDocument;
  let schemaOf: (ref: string) => (value: unknown) => boolean;

  before(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    document = (await request<OpenApiDocument>(app.url, 'GET', '/external/openapi.json')).body;
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document's own keys are not schema keywords, hence strict off.
    const ajv = new Ajv2020({ strict: false });
    // The service's own formats, each checked by the service's validator.
    const format = (name: string) => conforms({ type: 'string', format: name });
    ajv
      .addFormat('website-domain', isWebsiteDomain)
      .addFormat('redirect-uri', isRedirectUri)
      .addFormat('policy-region', format('policy-region'))
      .addFormat('calendar-date', format('calendar-date'))
      .addSchema(document, 'openapi.json');
    schemaOf = (ref) => {
      const validate = ajv.getSchema(`openapi.json${ref}`);
      if (!validate) throw new Error(`unresolvable ${ref}`);
      return (value) => validate(value) as boolean;
    };
  });

  it('describes exactly the ten operations of the specification, the two of domain verification, the two of the policy, the eight of webhooks, the audit trail, the statistics, the evidence pack, the verifications and deleting a website, all behind the bearer token', () => {
    expect(document.openapi).to.equal('3.1.0');
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(described).to.have.members([
      ...SPEC_OPERATIONS,
      ...DOMAIN_OPERATIONS,
      ...POLICY_OPERATIONS,
      ...WEBHOOK_OPERATIONS,
      ...AUDIT_OPERATIONS,
      ...VERIFICATION_OPERATIONS,
      ...WAY_OUT_OPERATIONS,
    ]);
    expect(described).to.have.length(28);
    expect(document.components.securitySchemes.apiToken).to.include({ type: 'http', scheme: 'bearer' });
  });

  it('declares every path parameter the path contains', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(operations)) {
        const inPath = operation.parameters.filter((parameter) => parameter.in === 'path');
        expect(
          inPath.map((parameter) => parameter.name),
          `${operation.operationId}`,
        ).to.deep.equal(names);
        expect(inPath.every((parameter) => parameter.required)).to.equal(true);
        expect(
          operation.parameters.every(
            (parameter) => parameter.in === 'path' || (parameter.in === 'query' && !parameter.required),
          ),
        ).to.equal(true);
      }
    }
  });

  it('answers every documented operation with a body its 200 schema accepts, and errors its error schema accepts', async () => {
    const client = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE' });
    for (const call of everyOperation(client.websiteId)) {
      const operation =
        document.paths[
          `/external${call.path.replace(/\/website\/\d+/, '/website/{website_id}').replace(/\/(live|test)(?=\/|$)/, '/{environment}')}`
        ]?.[call.method.toLowerCase()];
      expect(operation, call.name).to.not.equal(undefined);
      const response = await send(app.url, call, webmaster.apiToken);
      expect(response.status, `${call.name}: ${JSON.stringify(response.body)}`).to.equal(200);
      expect(
        schemaOf(operation!.responses['200']!.content['application/json']!.schema.$ref)(response.body),
        `${call.name} 200 body`,
      ).to.equal(true);
      const unauthorized = await send(app.url, call, undefined);
      expect(
        schemaOf(operation!.responses['401']!.content['application/json']!.schema.$ref)(unauthorized.body),
      ).to.equal(true);
    }
  });

  it('answers the webhook operations with their documented status and a body their schema accepts', async () => {
    const { websiteId } = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE' });
    const documented = (method: string, path: string) =>
      document.paths[`/external/website/{website_id}/webhooks${path}`]![method]!;
    const accepts = (operation: OpenApiOperation, status: number, body: unknown) =>
      schemaOf(operation.responses[String(status)]!.content['application/json']!.schema.$ref)(body);
    const base = `/external/website/${websiteId}/webhooks`;
    const call = (method: string, path: string, json?: unknown) =>
      request(app.url, method, `${base}${path}`, {
        token: webmaster.apiToken,
        ...(json !== undefined ? { json } : {}),
      });
    const created = await call('POST', '', {
      url: 'https://hooks.example.com/in',
      events: ['verification.completed', 'website.updated'],
    });
    expect(created.status).to.equal(201);
    expect(accepts(documented('post', ''), 201, created.body)).to.equal(true);
    const { id } = created.body as { id: number };
    const listed = await call('GET', '');
    expect(accepts(documented('get', ''), 200, listed.body)).to.equal(true);
    const tested = await call('POST', `/${id}/test`, {});
    expect(accepts(documented('post', '/{webhook_id}/test'), 200, tested.body)).to.equal(true);
    const deliveries = await call('GET', `/${id}/deliveries`);
    expect(accepts(documented('get', '/{webhook_id}/deliveries'), 200, deliveries.body)).to.equal(true);
    const { message_id: messageId } = await app.provider
      .db('webhook_messages')
      .where('webhook_id', id)
      .first<{ message_id: string }>('message_id');
    const message = await call('GET', `/${id}/messages/${messageId}`);
    expect(message.status).to.equal(200);
    expect(accepts(documented('get', '/{webhook_id}/messages/{message_id}'), 200, message.body)).to.equal(true);
    const redelivered = await call('POST', `/${id}/messages/${messageId}/redeliver`, {});
    expect(redelivered.status).to.equal(200);
    expect(
      accepts(documented('post', '/{webhook_id}/messages/{message_id}/redeliver'), 200, redelivered.body),
    ).to.equal(true);
    const unknown = await call('GET', `/${id}/messages/msg_${'0'.repeat(32)}`);
    expect(unknown.status).to.equal(404);
    expect(accepts(documented('get', '/{webhook_id}/messages/{message_id}'), 404, unknown.body)).to.equal(true);
    const rotated = await call('POST', `/${id}/rotate-secret`, { overlapHours: 1 });
    expect(rotated.status).to.equal(200);
    expect(accepts(documented('post', '/{webhook_id}/rotate-secret'), 200, rotated.body)).to.equal(true);
    expect(documented('post', '/{webhook_id}/rotate-secret').requestBody).to.deep.include({ required: false });
    const deleted = await call('DELETE', `/${id}`);
    expect(deleted.status).to.equal(204);
    expect(deleted.body).to.equal(undefined);
    expect(documented('delete', '/{webhook_id}').responses['204']).to.not.equal(undefined);
    const gone = await call('DELETE', `/${id}`);
    expect(gone.status).to.equal(404);
    expect(accepts(documented('delete', '/{webhook_id}'), 404, gone.body)).to.equal(true);
  });

  it('publishes request schemas that agree with the API on what is valid', async () => {
    const { websiteId } = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE' });
    const samples: Array<[string, string, unknown]> = [
      ['post', '/website', { name: 'Ok', domain: 'ok.example.com' }],
      ['post', '/website', { name: 'Ok', domain: 'https://ok.example.com' }],
      ['post', '/website', { name: 'Ok', domain: 'ok.example.com', regions: ['US-TX', 'DE'] }],
      ['post', '/website', { name: 'Ok', domain: 'ok.example.com', regions: ['US-ZZ'] }],
      ['patch', `/website/${websiteId}`, {}],
      ['patch', `/website/${websiteId}`, { language: 'pt' }],
      ['patch', `/website/${websiteId}/oauth2/live`, { redirectUris: ['http://example.com/cb'] }],
      ['patch', `/website/${websiteId}/oauth2/live`, { redirectUris: ['http://localhost/cb'], status: 'ACTIVE' }],
      [
        'put',
        `/website/${websiteId}/policy`,
        { rules: [{ regions: ['FR', 'US-TX', '*'], challenges: ['eu_av'], challengesUntil: { eu_av: '2030-01-01' } }] },
      ],
      [
        'put',
        `/website/${websiteId}/policy`,
        { rules: [{ regions: ['FR'], challengesUntil: { eu_av: '2030-02-30' } }] },
      ],
      ['put', `/website/${websiteId}/policy`, { rules: [{ regions: ['US-ZZ'] }] }],
      ['put', `/website/${websiteId}/policy`, { rules: [{ regions: [] }] }],
    ];
    for (const [method, path, body] of samples) {
      const documented =
        document.paths[
          `/external${path.replace(/\/website\/\d+/, '/website/{website_id}').replace(/\/live$/, '/{environment}')}`
        ]![method]!;
      const valid = schemaOf(documented.requestBody!.content['application/json']!.schema.$ref)(body);
      const response = await request(app.url, method.toUpperCase(), `/external${path}`, {
        token: webmaster.apiToken,
        json: body,
      });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(valid ? 200 : 400);
    }
  });

  it('answers 405 to every method a documented path does not list', async () => {
    const { websiteId } = await createClientFixture(app.provider.runtime, webmaster.id);
    for (const [path, operations] of Object.entries(document.paths)) {
      const concrete = path
        .replace('{website_id}', String(websiteId))
        .replace('{environment}', 'test')
        .replace('{webhook_id}', '1');
      for (const method of METHODS.filter((candidate) => !(candidate in operations))) {
        const response = await request(app.url, method.toUpperCase(), concrete, { token: webmaster.apiToken });
        expect(response.status, `${method} ${path}`).to.equal(405);
      }
    }
  });
});
