import { expect } from 'chai';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import type { Database } from '../../lib/store/database.js';
import { INPUT_LIMITS } from '../../lib/http/input-guard.js';
import { SURFACES } from '../../lib/app/surfaces.js';
import { OPERATIONS } from '../../lib/external/operations.js';
import { useApp } from '../helpers/app.js';
import { REGION_CODES } from '../../lib/geo/region-codes.js';
import { LANGUAGE_CHOICES } from '../../lib/i18n/languages.js';
import { CHALLENGE_NAMES } from '../../lib/verification/challenge.js';
import { SUBSCRIBABLE_EVENTS } from '../../lib/webhooks/events.js';
import type { Website } from '../../lib/websites/index.js';
import { apiClient, request, snapshot, type ApiResponse } from '../external/api.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { serviceRoutes, type Claimant, type ServiceRoute } from '../helpers/routes.js';

/** Bounded: the suite runs on both databases in CI; the sweep below already sends every kind to every route once. */
const RUNS = 300;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/**
 * Node's HTTP server hands CONNECT to a 'connect' listener (a proxy's tunnel) and, with none, closes the connection
 * without an answer: it never reaches a route of ours, so it is no route's input to check.
 */
const TUNNEL = 'CONNECT';

interface BadRequest {
  method: string;
  /** appended to the route's path: a query, or a path segment */
  suffix: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
const hex = (byte: number) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;

/** Query values no surface may accept: control characters, invalid UTF-8, broken percent-encoding, overlong. */
const badQueryValue = fc.oneof(
  fc
    .tuple(
      fc.string({ maxLength: 10 }),
      fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })),
      fc.string({ maxLength: 10 }),
    )
    .map(([before, control, after]) => encodeURIComponent(before + String.fromCharCode(control) + after)),
  fc
    .constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80])
    .map((bytes) => bytes.map(hex).join('')),
  fc.constantFrom('%', '%zz', '%0', 'a%00b', '%0D%0A'),
  fc.integer({ min: 2049, max: 8000 }).map((length) => 'q'.repeat(length)),
  fc
    .integer({ min: 8200, max: 9000 })
    .map((length) => `a=${'b'.repeat(1000)}&`.repeat(Math.ceil(length / 1003)).slice(0, -1)),
);
const queryName = fc.constantFrom(
  'x',
  'state',
  'client_id',
  'redirect_uri',
  'next',
  'key',
  'token',
  'code',
  'ui_locales',
);

const nested = (depth: number, open: string) => open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth);
/** Bodies the input guard must refuse, each with the content type that makes it read them. */
const badBody = fc.oneof(
  fc
    .tuple(fc.integer({ min: 65, max: 20_000 }), fc.constantFrom('[', '{"a":'))
    .map(([depth, open]) => ({ type: JSON_TYPE, body: Buffer.from(nested(depth, open)) })),
  fc.integer({ min: 1000, max: 20_000 }).map((width) => ({
    type: JSON_TYPE,
    body: Buffer.from(
      JSON.stringify(
        Object.fromEntries(
          Array.from({ length: width }, (_, index) => [`k${index}`, index === width - 1 ? 'a\u0000b' : index]),
        ),
      ),
    ),
  })),
  fc
    .integer({ min: 257 * 1024, max: 400 * 1024 })
    .chain((size) => fc.constantFrom(JSON_TYPE, FORM_TYPE).map((type) => ({ type, body: Buffer.alloc(size, 0x61) }))),
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((bytes) => ({
    type: FORM_TYPE,
    body: Buffer.concat([Buffer.from('email=a'), Buffer.from([0xff]), Buffer.from(bytes)]),
  })),
  // escaped, so the JSON is well formed and the control character is in the parsed text
  fc
    .constantFrom({ name: '\u0000' }, { 'a\u0007': 1 }, ['\u001b'], { domain: 'a\u0085' })
    .map((json) => ({ type: JSON_TYPE, body: Buffer.from(JSON.stringify(json)) })),
  fc
    .tuple(
      fc.constantFrom('email', 'password', '_csrf', 'username', 'token', 'grant_type'),
      fc.constantFrom('%00', '%01', '%7F', '%C2%85', '%FF', '%'),
    )
    .map(([name, value]) => ({ type: FORM_TYPE, body: Buffer.from(`${name}=a${value}b&password=p`) })),
);

/** Authorization headers of every kind but a valid one: malformed, foreign schemes, undecodable Basic, overlong. */
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'Bearer',
    'Bearer a b',
    'Bearer ä',
    'Basic',
    'Basic ////',
    'Digest username="a"',
    'Negotiate YII=',
    'NTLM TlRMTVNTUAAB',
    'Bearer avk_0.0',
    '  ',
    'AWS4-HMAC-SHA256 Credential=x',
  ),
  fc.uint8Array({ maxLength: 24 }).map((bytes) => `Basic ${Buffer.from(bytes).toString('base64')}`),
  fc
    .constantFrom('a\u0000b:s', 'c:%00', '%ff:%zz')
    .map((text) => `Basic ${Buffer.from(text, 'latin1').toString('base64')}`),
  // overlong, but with the query and the other headers under Node's 16 KiB header limit (over it Node itself answers 431)
  fc.integer({ min: 2000, max: 3000 }).map((length) => `Bearer ${'t'.repeat(length)}`),
);
/** Other headers a stranger controls: wrong content types (alone), overlong values. */
const extraHeaders = fc.record(
  {
    'content-type': fc.constantFrom(
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/octet-stream',
      '',
    ),
    'x-filler': fc.integer({ min: 0, max: 3000 }).map((length) => 'f'.repeat(length)),
    'accept-language': fc.constantFrom('fr', '*', 'xx-YYYY-zzzz;q=2', 'de'.repeat(500)),
  },
  { requiredKeys: [] },
);

/** What is certainly bad about a request: each property run puts at least one of these in it. */
const badRequest = (route: ServiceRoute) =>
  fc
    .tuple(
      fc.constantFrom(...METHODS, ...route.methods.filter((method) => method !== TUNNEL)),
      fc.oneof(
        fc.tuple(queryName, badQueryValue).map(([name, value]) => ({ suffix: `?${name}=${value}` })),
        badBody.map(({ type, body }) => ({ suffix: '', type, body })),
        fc.constantFrom('/%00', '/a%01b', '/%C3%28', '/%FF').map((suffix) => ({ suffix })),
      ),
      authorization,
      extraHeaders,
    )
    .map(([method, bad, auth, extra]): BadRequest => {
      // The wrong content type goes with a neutral body only: with a bad body the type that makes the guard read it stays.
      const headers: Record<string, string> = 'type' in bad ? { ...extra, ...bad.type } : { ...extra };
      if (headers['content-type'] === '') delete headers['content-type'];
      if (auth !== undefined) headers.authorization = auth;
      return {
        method,
        suffix: bad.suffix,
        headers,
        ...('body' in bad
          ? { body: bad.body }
          : 'content-type' in headers
            ? { body: Buffer.from('<a>\u0000</a>') }
            : {}),
      };
    });

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** Sends over a raw socket: any method with any body (a GET with a body too), headers as they are. */
function send(base: string, path: string, { method, headers, body }: BadRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413) and close before it has read a large body: the answer is what counts, and where the
    // close reset the connection before the answer was read, the reset is the answer (status 0), never a wait for ever.
    let reset = false;
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') reset = true;
      else reject(error);
    });
    req.on('close', () => {
      if (reset) resolve({ status: 0, type: '', text: 'connection reset before an answer was read' });
    });
    // A request the server never answers is a defect: named at once, not a run's whole timeout later.
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer in 60 s to ${method} ${path.slice(0, 80)}`)));
    req.end(body);
  });
}

/** The error in the surface's documented shape: the External API's body, RFC 6749 JSON, or the visitor's page. */
function expectShape(route: Claimant, request: BadRequest, answer: Answer, what: string): void {
  if (request.method === 'HEAD') return; // no body to read
  const json = () => JSON.parse(answer.text) as Record<string, unknown>;
  if (route.errors === 'external') {
    expect(answer.type, what).to.match(/^application\/json/);
    expect(json(), what).to.have.all.keys('message', 'error', 'statusCode').and.include({ statusCode: answer.status });
  } else if (route.errors === 'oauth' || (answer.status === 405 && answer.type.startsWith('application/json'))) {
    // the OAuth2 method guard answers a wrong method on the browser side in OAuth2 JSON too (lib/oauth2/method-guard.ts)
    expect(answer.type, what).to.match(/^application\/json/);
    expect(json().error, what).to.be.a('string');
  } else {
    expect(answer.type, what).to.match(/^text\/html/);
    expect(answer.text, what).to.include('<html');
  }
}

/** Rows per table, but the rate-limit counters (a refused request may spend a point: that is their job). */
async function tableCounts(db: Database): Promise<Record<string, number>> {
  const tables = (await db('information_schema.tables')
    .where({ table_schema: db.raw('current_schema()'), table_type: 'BASE TABLE' })
    .pluck('table_name')) as string[];
  const counts: Record<string, number> = {};
  for (const table of tables.filter((name) => name !== 'rate_limits' && !name.startsWith('knex_')).sort()) {
    counts[table] = Number((await db(table).count({ n: '*' }).first())?.n ?? 0);
  }
  return counts;
}

describe('never a 5xx for bad input: every route of every surface, generated from the surfaces table and the routers', function () {
  this.timeout(600_000);
  // A mail server, so the routes that mail (the platform's sign-in codes) are served and swept too.
  const app = useApp({
    env: {
      EXTERNAL_API_RATE_LIMIT_PER_TOKEN: '1000000',
      EXTERNAL_API_RATE_LIMIT_PER_IP: '1000000',
      OAUTH2_RATE_LIMIT_PER_IP: '1000000',
      CHECKER_RATE_LIMIT_PER_IP: '1000000',
      REQUIREMENT_RATE_LIMIT_PER_IP: '1000000',
      SMTP_URL: 'console',
      MAIL_FROM: 'Age Provider <no-reply@age.test>',
    },
  });
  let routes: ServiceRoute[];
  let claimant: (path: string) => Claimant;
  let apiToken: string;
  before(async () => {
    ({ routes, claimant } = serviceRoutes(app.provider));
    apiToken = (await createWebmasterFixture(app.provider.runtime)).apiToken;
  });

  /**
   * One bad request to one route: a 4xx in the shape of the surface serving it where the guard stands, never a 5xx
   * anywhere (a path segment added may hand the request to another surface: the OAuth2 browser side's 404).
   */
  async function check(route: ServiceRoute, request: BadRequest): Promise<void> {
    const surface = claimant(route.path + request.suffix);
    // a valid API token now and then, so the External API's handlers behind authentication see the bad input too
    const sent =
      route.errors === 'external' && request.headers.authorization === undefined
        ? { ...request, headers: { ...request.headers, authorization: `Bearer ${apiToken}` } }
        : request;
    const answer = await send(app.url, route.path + sent.suffix, sent);
    const what = `${sent.method} ${route.path}${sent.suffix.slice(0, 60)} (${sent.body?.length ?? 0} bytes of ${sent.headers['content-type'] ?? 'nothing'}, authorization ${String(sent.headers.authorization).slice(0, 40)}) → ${answer.status} ${answer.text.slice(0, 200)}`;
    // A reset is a refusal only of a body the guard never reads whole: past its limit the server answers 413 and closes.
    if (answer.status === 0) {
      expect(sent.body?.length ?? 0, what).to.be.above(INPUT_LIMITS.bodyBytes);
      return;
    }
    expect(answer.status, what).to.be.below(500);
    if (surface.guarded) expect(answer.status, what).to.be.within(400, 499);
    if (answer.status >= 400) expectShape(surface, sent, answer, what);
  }

  it('lists a route of every surface, each under the surface that claims it', () => {
    const surfaces = new Set(routes.map((route) => route.surface));
    expect([...surfaces].sort()).to.deep.equal(SURFACES.map((row) => row.name).sort());
    // routes added to a router are listed without a new test: the platform's and the External API's, for instance
    expect(routes.map((route) => route.pattern)).to.include.members([
      '/platform/websites/:id/domain/check',
      '/external/website/{website_id}/domain-verification/check',
      '/platform/websites/:id/webhooks/:webhook/test',
      '/platform/websites/:id/activity.jsonl',
      '/platform/websites/:id/statistics.csv',
      '/external/website/{website_id}/webhooks/{webhook_id}/deliveries',
      '/v1/oauth2/token',
      '/v1/oauth2/resources',
      '/readyz',
    ]);
  });

  it('sends every kind of bad input to every route once, and nothing changes in storage', async () => {
    const before = await tableCounts(app.database.db);
    const kinds: BadRequest[] = [
      { method: 'GET', suffix: '?x=a%00b', headers: {} },
      { method: 'GET', suffix: `?x=${'q'.repeat(9000)}`, headers: {} },
      { method: 'POST', suffix: '?state=%C3%28', headers: { authorization: 'Basic /w==' } },
      { method: 'POST', suffix: '', headers: JSON_TYPE, body: Buffer.from(nested(5000, '[')) },
      { method: 'POST', suffix: '', headers: JSON_TYPE, body: Buffer.from(nested(20_000, '{"a":')) },
      { method: 'PATCH', suffix: '', headers: FORM_TYPE, body: Buffer.from('email=%00&password=p') },
      { method: 'POST', suffix: '', headers: FORM_TYPE, body: Buffer.from([0x61, 0x3d, 0xff, 0xfe]) },
      { method: 'PUT', suffix: '', headers: JSON_TYPE, body: Buffer.alloc(300 * 1024, 0x20) },
      { method: 'DELETE', suffix: '/%00', headers: { authorization: 'Negotiate YII=' } },
    ];
    for (const route of routes) {
      for (const kind of kinds) await check(route, kind);
    }
    expect(await tableCounts(app.database.db)).to.deep.equal(before);
  });

  it("answers generated bad requests to generated routes with a 4xx in the surface's shape, and nothing changes in storage", async () => {
    const before = await tableCounts(app.database.db);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes).chain((route) => badRequest(route).map((request) => ({ route, request }))),
        ({ route, request }) => check(route, request),
      ),
      { numRuns: RUNS },
    );
    expect(await tableCounts(app.database.db)).to.deep.equal(before);
  });
});

const EXTERNAL_RUNS = 60;

/** Strings that are often almost right, sometimes anything at all (any code point, lone surrogates included). */
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'null', 'A'.repeat(101)),
);
const almost = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
const listOf = <T>(item: fc.Arbitrary<T>) => fc.oneof(fc.array(almost(item), { maxLength: 25 }), fc.jsonValue());

const name = almost(fc.string({ minLength: 1, maxLength: 100 }));
const domain = almost(fc.domain());
const language = almost(fc.constantFrom(...LANGUAGE_CHOICES));
const challenges = listOf(fc.constantFrom(...CHALLENGE_NAMES));
const regions = listOf(fc.constantFrom(...REGION_CODES, 'US-XX', 'de', 'EU'));
const redirectUris = listOf(
  fc.oneof(
    fc.webUrl({ withFragments: true, withQueryParameters: true }),
    fc.constantFrom('http://localhost:3000/cb', 'https://user@example.com/'),
  ),
);
const status = almost(fc.constantFrom('ACTIVE', 'DISABLED', 'active'));
const webhookUrl = almost(
  fc.oneof(
    fc.webUrl({ withQueryParameters: true }),
    fc.constantFrom('https://127.0.0.1/in', 'http://hooks.example.com/in', 'https://[::1]/in'),
  ),
);
const events = listOf(fc.oneof(fc.constantFrom(...SUBSCRIBABLE_EVENTS, 'webhook.test'), fc.string()));
/** A website's policy rule, almost valid: regions any loosening of the presets in force names, values around the limits. */
const policyRule = fc.record(
  {
    regions: listOf(fc.constantFrom('*', 'FR', 'US-MS', 'US', 'fr', 'US-XX', 'EU')),
    required: almost(fc.boolean()),
    ageThreshold: almost(fc.integer({ min: 10, max: 30 })),
    challenges,
    minimumAssuranceLevel: almost(fc.constantFrom('STANDARD', 'ENHANCED', 'STRICT')),
    estimationBuffer: almost(fc.integer({ min: -1, max: 12 })),
    reuseMaxAgeSeconds: almost(fc.integer({ min: -1, max: 40_000_000 })),
    requireDoubleAnonymity: almost(fc.boolean()),
    challengesUntil: almost(
      fc.dictionary(
        fc.constantFrom(...CHALLENGE_NAMES, 'x'),
        almost(fc.constantFrom('2024-12-31', '2030-01-01', '2026-02-30')),
        { maxKeys: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const extra = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });

/** A body: mostly objects built from almost-valid fields (with unknown keys now and then), else any JSON value. */
const bodyOf = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.record(fields, { requiredKeys: [] }),
          fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }),
        )
        .map(([known, unknown]) => ({ ...unknown, ...known })),
    },
    { weight: 1, arbitrary: fc.jsonValue() },
  );

describe("never a 5xx for almost-valid input: the External API's write endpoints, field by field", function () {
  this.timeout(240_000);
  // Presets in force, so the policy's refusals of loosening rules are fuzzed too.
  const app = useApp({
    env: {
      EXTERNAL_API_RATE_LIMIT_PER_TOKEN: '100000',
      EXTERNAL_API_RATE_LIMIT_PER_IP: '100000',
      POLICY_PRESETS: 'fr,us-ms',
    },
  });
  let token: string;
  let websiteId: number;
  let webhookId: number;

  before(async () => {
    token = (await createWebmasterFixture(app.provider.runtime)).apiToken;
    const api = apiClient(app.url, token);
    websiteId = (await api.post<Website>('/website', { name: 'Fuzz', domain: 'fuzz.example.com' })).body.id;
    await api.post(`/website/${websiteId}/oauth2/live`, { redirectUris: ['https://fuzz.example.com/cb'] });
    webhookId = (
      await api.post<{ id: number }>(`/website/${websiteId}/webhooks`, {
        url: 'https://hooks.example.com/in',
        events: ['website.updated'],
      })
    ).body.id;
  });

  /** Never a 5xx; a rejection is the error shape and leaves every table as it was. */
  async function checkWrite(send: () => Promise<ApiResponse>): Promise<void> {
    const before = await snapshot(app.database.db);
    const response = await send();
    expect(response.status, JSON.stringify(response.body)).to.be.below(500);
    if (response.status >= 400) {
      expect(response.body).to.have.all.keys('message', 'error', 'statusCode');
      expect(await snapshot(app.database.db), `changed by a ${response.status}`).to.equal(before);
    }
  }

  const property = (path: () => string, method: string, body: fc.Arbitrary<unknown>) =>
    fc.assert(
      fc.asyncProperty(body, async (json) =>
        checkWrite(() => request(app.url, method, `/external${path()}`, { token, json })),
      ),
      { numRuns: EXTERNAL_RUNS },
    );

  it('POST /website', () =>
    property(() => '/website', 'POST', bodyOf({ name, domain, language, challenges, regions })));

  it('PATCH /website/{website_id}', () =>
    property(() => `/website/${websiteId}`, 'PATCH', bodyOf({ name, domain, language, challenges, regions })));

  it('POST /website/{website_id}/oauth2/{environment}', () =>
    property(() => `/website/${websiteId}/oauth2/test`, 'POST', bodyOf({ redirectUris })));

  it('PATCH /website/{website_id}/oauth2/{environment}', () =>
    property(() => `/website/${websiteId}/oauth2/live`, 'PATCH', bodyOf({ redirectUris, status })));

  it('PUT /website/{website_id}/policy', () =>
    property(() => `/website/${websiteId}/policy`, 'PUT', bodyOf({ rules: listOf(policyRule) })));

  it('POST /website/{website_id}/webhooks', () =>
    property(() => `/website/${websiteId}/webhooks`, 'POST', bodyOf({ url: webhookUrl, events })));

  it('POST /website/{website_id}/webhooks/{webhook_id}/rotate-secret', () =>
    property(
      () => `/website/${websiteId}/webhooks/${webhookId}/rotate-secret`,
      'POST',
      bodyOf({ overlapHours: almost(fc.integer({ min: -2, max: 200 })) }),
    ));

  /**
   * Every read that takes a query, from the operations list and each query's schema: almost-valid values of its own
   * parameters (days around what PostgreSQL holds, enums, cursors) and unknown ones. A new query parameter, or a new
   * operation with a query, is covered without a new test.
   */
  it('any query on every read that takes one (statistics, audit, verifications, …)', () => {
    const reads = OPERATIONS.filter((operation) => operation.query && operation.method === 'get');
    expect(reads.map((operation) => operation.operationId)).to.include.members(['getStatistics', 'listVerifications']);
    const sample = fc.constantFrom(
      '2026-01-01',
      '0000-01-01',
      '0001-01-01',
      '9999-12-31',
      '2026-02-30',
      '1970-01-01',
      'LIVE',
      'TEST',
      'live',
      'DE',
      'de',
      'verified',
      'expired',
      'sandbox',
      '50',
      '0',
      '999',
      '-1',
      'MjAyNi0wMS0wMVQwMDowMDowMC4wMDBafHRlc3RfYQ',
      'MDAwMC0wMS0wMXx0ZXN0X2E',
      '',
    );
    const value = fc.oneof({ weight: 3, arbitrary: sample }, { weight: 1, arbitrary: anyString });
    return fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...reads)
          .chain((operation) =>
            fc.tuple(
              fc.constant(operation),
              fc.dictionary(
                fc.oneof(
                  { weight: 4, arbitrary: fc.constantFrom(...Object.keys(operation.query!.properties as object)) },
                  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
                ),
                value,
                { maxKeys: 4 },
              ),
            ),
          ),
        async ([operation, query]) => {
          const path = operation.path.replace(':website_id', String(websiteId));
          await checkWrite(() =>
            request(app.url, 'GET', `/external${path}?${new URLSearchParams(query).toString()}`, { token }),
          );
        },
      ),
      { numRuns: EXTERNAL_RUNS * 2 },
    );
  });

  it('raw bodies of any text and content type', () =>
    fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          ['POST', '/website'],
          ['PATCH', `/website/${websiteId}`],
          ['POST', `/website/${websiteId}/oauth2/test`],
          ['PATCH', `/website/${websiteId}/oauth2/live`],
          ['PUT', `/website/${websiteId}/policy`],
          ['POST', `/website/${websiteId}/webhooks`],
          ['POST', `/website/${websiteId}/webhooks/${webhookId}/rotate-secret`],
        ),
        fc.oneof(fc.string({ unit: 'binary' }), fc.json()),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=utf-16',
        ),
        async ([method, path], raw, contentType) =>
          checkWrite(() =>
            request(app.url, method, `/external${path}`, { token, raw, headers: { 'Content-Type': contentType } }),
          ),
      ),
      { numRuns: EXTERNAL_RUNS },
    ));

  it('any path parameters on every write, including the regenerations', () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.nat().map(String), fc.constant(String(websiteId))),
        fc.oneof(fc.constantFrom('live', 'test', 'LIVE'), fc.string()),
        fc.constantFrom('', '/key/{env}/regenerate', '/oauth2/{env}', '/oauth2/{env}/regenerate'),
        async (id, environment, suffix) => {
          const path = `/website/${encodeURIComponent(id)}${suffix.replace('{env}', encodeURIComponent(environment))}`;
          const json =
            suffix === '' ? { name: 'Renamed' } : suffix === '/oauth2/{env}' ? { status: 'ACTIVE' } : undefined;
          await checkWrite(() => request(app.url, 'PATCH', `/external${path}`, { token, ...(json ? { json } : {}) }));
        },
      ),
      { numRuns: EXTERNAL_RUNS },
    ));
});
