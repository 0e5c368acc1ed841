import { expect } from 'chai';
import type { Website } from '../../lib/websites/index.js';
import { useApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, request, snapshot, type ApiClient } from './api.js';

const long = (length: number) => 'a'.repeat(length);
const uris = (count: number) => Array.from({ length: count }, (_, index) => `https://example.com/cb/${index}`);

/** [what is wrong, field values merged into a valid body] */
const INVALID_WEBSITE_FIELDS: Array<[string, Record<string, unknown>]> = [
  ['unknown field', { owner: 1 }],
  ['empty name', { name: '' }],
  ['blank name', { name: '   ' }],
  ['name over 100 characters', { name: long(101) }],
  ['name with NUL', { name: 'a\u0000b' }],
  ['name of NUL only', { name: '\u0000' }],
  ['name with a leading tab', { name: '\tname' }],
  ['name with a tab', { name: 'a\tb' }],
  ['name with a line break', { name: 'a\nb' }],
  ['name with a line separator', { name: 'a\u2028b' }],
  ['name with a lone surrogate', { name: 'a\ud800b' }],
  // Bidirectional controls: a right-to-left override (or embedding, or isolate) makes the prompt read the name backwards.
  ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'].map(
    (control): [string, Record<string, unknown>] => [
      `name with U+${control.codePointAt(0)!.toString(16).toUpperCase()}`,
      { name: `Shop ${control}pohs` },
    ],
  ),
  ['name starting with a right-to-left override', { name: '\u202eShop' }],
  ['name not a string', { name: 42 }],
  ['name null', { name: null }],
  ['language upper case', { language: 'EN' }],
  ['language unknown', { language: 'nl' }],
  ['language empty', { language: '' }],
  ['language as array', { language: ['en'] }],
  ['no challenges', { challenges: [] }],
  ['challenge a website cannot list', { challenges: ['paypal'] }],
  ['challenge unknown', { challenges: ['retina'] }],
  ['challenge upper case', { challenges: ['SELFIE'] }],
  ['challenge repeated', { challenges: ['selfie', 'selfie'] }],
  ['challenges as string', { challenges: 'selfie' }],
  ['challenge not a string', { challenges: [1] }],
  ['region lower case', { regions: ['de'] }],
  ['region unassigned', { regions: ['XX'] }],
  ['region reserved, not assigned', { regions: ['UK'] }],
  ['region EU', { regions: ['EU'] }],
  ['US subdivision unknown', { regions: ['US-XX'] }],
  ['subdivision outside the US', { regions: ['DE-BY'] }],
  ['region repeated', { regions: ['DE', 'DE'] }],
  ['regions as string', { regions: 'DE' }],
  ['region null', { regions: [null] }],
  ['alpha-3 region', { regions: ['DEU'] }],
];

const INVALID_DOMAINS: unknown[] = [
  '',
  'https://example.com',
  'example.com:8080',
  'example.com/path',
  'example.com?x',
  'EXAMPLE.com',
  'Example.com',
  'münchen.de',
  'xn--zz.de',
  'localhost.',
  'Localhost',
  'localhost:3000',
  'intranet',
  'com',
  'xn--mnchen-3ya',
  '127.0.0.1',
  '[::1]',
  '-bad.com',
  'bad-.com',
  'exa mple.com',
  'ex_ample.com',
  'example.com.',
  '.example.com',
  'a..b.com',
  `${long(64)}.com`,
  `${long(60)}.${long(60)}.${long(60)}.${long(60)}.${long(60)}.com`,
  'user@example.com',
  'example.com\n',
  42,
  null,
  ['example.com'],
];

const INVALID_REDIRECT_URIS: Array<[string, unknown]> = [
  ['none', []],
  ['more than 20', uris(21)],
  ['repeated', ['https://example.com/cb', 'https://example.com/cb']],
  ['not a URL', ['not a url']],
  ['relative', ['/callback']],
  ['http on a public host', ['http://example.com/cb']],
  ['http on a look-alike of localhost', ['http://localhost.evil.com/cb']],
  ['http on another loopback address', ['http://127.0.0.2/cb']],
  ['fragment', ['https://example.com/cb#top']],
  ['empty fragment', ['https://example.com/cb#']],
  ['userinfo', ['https://user:secret@example.com/cb']],
  ['empty userinfo', ['https://@example.com/cb']],
  ['other scheme', ['ftp://example.com/cb']],
  ['script scheme', ['javascript:alert(1)']],
  ['custom scheme without authority', ['com.example.app:/cb']],
  ['surrounding space', [' https://example.com/cb']],
  ['inner space', ['https://exa mple.com/cb']],
  ['non-ASCII', ['https://exämple.com/cb']],
  ['too long', [`https://example.com/${long(2000)}`]],
  ['not a string', [42]],
  ['not an array', 'https://example.com/cb'],
];

describe('External API: validation', () => {
  const app = useApp();
  let api: ApiClient;
  let token: string;
  let website: Website;

  before(async () => {
    token = (await createWebmasterFixture(app.provider.runtime)).apiToken;
    api = apiClient(app.url, token);
    website = (await api.post<Website>('/website', { name: 'Valid', domain: 'valid.example.com' })).body;
    await api.post(`/website/${website.id}/oauth2/live`, { redirectUris: ['https://valid.example.com/cb'] });
  });

  /** Sends each case, expecting 400 and no stored change; returns the messages. */
  async function expectRejected(
    cases: Array<[string, () => Promise<Parameters<typeof expectError>[0]>]>,
  ): Promise<string[]> {
    const before = await snapshot(app.database.db);
    const messages: string[] = [];
    for (const [label, send] of cases) {
      const response = await send();
      expect(response.status, `${label}: ${JSON.stringify(response.body)}`).to.equal(400);
      messages.push(expectError(response, 400));
    }
    expect(await snapshot(app.database.db), 'nothing changed').to.equal(before);
    return messages;
  }

  it('rejects bodies that are not JSON objects', async () => {
    const bodies = ['[]', '"name"', '42', 'null', 'true', ''];
    const targets: Array<[string, string]> = [
      ['POST', '/external/website'],
      ['PATCH', `/external/website/${website.id}`],
      ['POST', `/external/website/${website.id}/oauth2/test`],
      ['PATCH', `/external/website/${website.id}/oauth2/live`],
    ];
    await expectRejected(
      targets.flatMap(([method, path]) =>
        bodies.map((raw): [string, () => ReturnType<typeof request>] => [
          `${method} ${path} ${raw}`,
          () => request(app.url, method, path, { token, raw, headers: { 'Content-Type': 'application/json' } }),
        ]),
      ),
    );
  });

  it('rejects a create without name or domain', async () => {
    const messages = await expectRejected([
      ['no name', () => api.post('/website', { domain: 'a.example.com' })],
      ['no domain', () => api.post('/website', { name: 'A' })],
      ['nothing', () => api.post('/website', {})],
    ]);
    expect(messages[0]).to.contain('"name"');
    expect(messages[1]).to.contain('"domain"');
  });

  it('rejects every invalid website field on create and on update', async () => {
    const messages = await expectRejected(
      INVALID_WEBSITE_FIELDS.flatMap(([label, fields]) => [
        [`create: ${label}`, () => api.post('/website', { name: 'Valid', domain: 'valid.example.com', ...fields })],
        [`update: ${label}`, () => api.patch(`/website/${website.id}`, fields)],
      ]),
    );
    expect(messages[0]).to.contain('Unknown field "owner"');
    expect(messages[4]).to.contain('name');
  });

  it('rejects every invalid domain', async () => {
    const messages = await expectRejected(
      INVALID_DOMAINS.map((domain) => [
        `domain ${JSON.stringify(domain)}`,
        () => api.post('/website', { name: 'Valid', domain }),
      ]),
    );
    expect(messages.every((message) => message.includes('domain'))).to.equal(true);
  });

  it('rejects every invalid redirectUris on create and on update', async () => {
    const other = (await api.post<Website>('/website', { name: 'Other', domain: 'other.example.com' })).body.id;
    await expectRejected(
      INVALID_REDIRECT_URIS.flatMap(([label, redirectUris]) => [
        [`create: ${label}`, () => api.post(`/website/${other}/oauth2/live`, { redirectUris })],
        [`update: ${label}`, () => api.patch(`/website/${website.id}/oauth2/live`, { redirectUris })],
        [
          `update with ACTIVE: ${label}`,
          () => api.patch(`/website/${website.id}/oauth2/live`, { status: 'ACTIVE', redirectUris }),
        ],
      ]),
    );
  });

  it('rejects invalid OAuth2 bodies: unknown fields, status values, empty updates', async () => {
    await expectRejected([
      ['create without redirectUris', () => api.post(`/website/${website.id}/oauth2/test`, {})],
      [
        'create with status',
        () =>
          api.post(`/website/${website.id}/oauth2/test`, {
            redirectUris: ['https://a.example.com/'],
            status: 'ACTIVE',
          }),
      ],
      ['update empty', () => api.patch(`/website/${website.id}/oauth2/live`, {})],
      ['update unknown field', () => api.patch(`/website/${website.id}/oauth2/live`, { clientId: 'live_x' })],
      ['status lower case', () => api.patch(`/website/${website.id}/oauth2/live`, { status: 'active' })],
      ['status unknown', () => api.patch(`/website/${website.id}/oauth2/live`, { status: 'ENABLED' })],
      ['status null', () => api.patch(`/website/${website.id}/oauth2/live`, { status: null })],
      ['status boolean', () => api.patch(`/website/${website.id}/oauth2/live`, { status: true })],
    ]);
  });

  it('rejects malformed path parameters', async () => {
    const ids = ['0', '-1', '1.5', 'abc', '1e3', '01', '0x1', '1234567890123456', '%20'];
    await expectRejected(
      ids.flatMap((id) => [
        [`GET website ${id}`, () => api.get(`/website/${id}`)],
        [`PATCH website ${id}`, () => api.patch(`/website/${id}`, { name: 'x' })],
        [`GET key ${id}`, () => api.get(`/website/${id}/key/live`)],
        [
          `POST oauth2 ${id}`,
          () => api.post(`/website/${id}/oauth2/live`, { redirectUris: ['https://a.example.com/'] }),
        ],
      ]),
    );
    await expectRejected(
      ['LIVE', 'Live', 'prod', 'production', 'live%20', 'test%00', '%E2%82%AC'].flatMap((environment) => [
        [`GET oauth2 ${environment}`, () => api.get(`/website/${website.id}/oauth2/${environment}`)],
        [
          `PATCH oauth2 ${environment}`,
          () => api.patch(`/website/${website.id}/oauth2/${environment}`, { status: 'ACTIVE' }),
        ],
        [
          `PATCH oauth2 regenerate ${environment}`,
          () => api.patch(`/website/${website.id}/oauth2/${environment}/regenerate`),
        ],
        [
          `PATCH key regenerate ${environment}`,
          () => api.patch(`/website/${website.id}/key/${environment}/regenerate`),
        ],
      ]),
    );
  });

  it('accepts the boundaries: 100-character names, punycode domains, localhost, US subdivisions, loopback http, 20 URIs', async () => {
    const created = await api.post<Website>('/website', {
      name: long(100),
      domain: 'xn--55qx5d.xn--fiqs8s',
      regions: ['US-PR', 'US-WY', 'AX', 'ZW'],
      challenges: ['selfie', 'email_age', 'credit_card', 'ticket', 'anonymage', 'pleenk'],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const many = await api.post<{ redirectUris: string[] }>(`/website/${created.body.id}/oauth2/test`, {
      redirectUris: uris(20),
    });
    expect(many.status, JSON.stringify(many.body)).to.equal(200);
    expect(many.body.redirectUris).to.deep.equal(uris(20));
    const local = await api.post<Website>('/website', { name: 'On my machine', domain: 'localhost' });
    expect(local.status, 'localhost: the one single-label domain').to.equal(200);
    expect(local.body.domain).to.equal('localhost');
    const loopback = [
      'http://localhost:8080/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:3000/cb?x=1',
      'https://app.example.com:8443/a/b?c=d',
    ];
    const updated = await api.patch<{ redirectUris: string[] }>(`/website/${created.body.id}/oauth2/test`, {
      redirectUris: loopback,
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.body.redirectUris).to.deep.equal(loopback);
  });
});
