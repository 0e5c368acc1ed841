import { catalogues } from '../../lib/i18n/catalogue.js';
import { TABS } from '../../lib/platform/routes/website-routes.js';
import { OUTCOMES } from '../../lib/verification/listing-schemas.js';
import { LANGUAGE_CHOICES } from '../../lib/i18n/languages.js';
import { ASSURANCE_LEVELS, CHALLENGE_NAMES, WEBSITE_CHALLENGES } from '../../lib/verification/challenge.js';

// Plausible variables for rendering each full page (views/<name>) in the i18n test. A page not listed renders with
// none (nunjucks prints undefined as empty); listing a page makes its branches render too, one variable set each.
// Where a page builds a key from a variable (t('interaction.error.' + kind + '.title')), every value the English
// catalogue knows for it is rendered, so a gap in any language shows.

/** Every `x` for which `prefix + x + suffix` is an English key (x without dots). */
function keyParts(prefix: string, suffix = ''): string[] {
  return Object.keys(catalogues.en)
    .filter((key) => key.startsWith(prefix) && key.endsWith(suffix) && key.length > prefix.length + suffix.length)
    .map((key) => key.slice(prefix.length, key.length - suffix.length))
    .filter((part) => !part.includes('.'));
}

/** One variable set per value of `name`, each on top of `base` (at least one set, even with no values). */
const each = (base: Record<string, unknown>, name: string, values: unknown[]): Array<Record<string, unknown>> =>
  values.length > 0 ? values.map((value) => ({ ...base, [name]: value })) : [base];

const interactionPaths = {
  choose: '/v1/oauth2/interaction/uid/choose',
  cancel: '/v1/oauth2/interaction/uid/cancel',
  reuse: '/v1/oauth2/interaction/uid/reuse',
  signIn: '/v1/oauth2/interaction/uid/sign-in',
  consent: '/v1/oauth2/interaction/uid/consent',
  continueResult: '/v1/oauth2/interaction/uid/continue',
  saveResult: '/v1/oauth2/interaction/uid/save',
};
const visitor = {
  paths: interactionPaths,
  sandbox: true,
  error: 'Sample error',
  proof: { challenge: 'selfie' },
  username: 'visitor',
  website: { name: 'Example Shop', domain: 'shop.example', domainVerified: false },
  returnHost: 'shop.example',
  step: 'check',
  hasOtherChallenges: true,
  fieldErrors: [{ field: 'username', message: 'Sample field error' }],
};
const notices = keyParts('interaction.notice.');

const website = {
  id: 1,
  name: 'Example Shop',
  domain: 'shop.example',
  language: 'auto',
  regions: ['US-TX', 'DE'],
  challenges: ['selfie', 'ticket'],
  keys: [
    { environment: 'LIVE', publicKey: 'pk_live_sample' },
    { environment: 'TEST', publicKey: 'pk_test_sample' },
  ],
};
const activeConfig = {
  status: 'ACTIVE',
  redirectUris: ['https://shop.example/callback'],
  clientId: 'live_sample',
  clientSecret: 'secret_sample',
};
const overview = { website, oauth2: { LIVE: activeConfig, TEST: { ...activeConfig, status: 'DISABLED' } } };
/** What a role allows on a page (lib/platform/page.ts): an owner's everything, a viewer's reading. */
const everything = { view: true, secrets: true, change: true, members: true, ownership: true };
const viewerMay = { view: true, secrets: false, change: false, members: false, ownership: false };
const platform = {
  webmaster: {
    id: 1,
    email: 'webmaster@example.test',
    account: { id: 1, email: 'webmaster@example.test', role: 'owner' },
  },
  may: everything,
  languages: LANGUAGE_CHOICES,
  challenges: WEBSITE_CHALLENGES,
  freeChallenges: WEBSITE_CHALLENGES.slice(0, 3),
  environments: ['LIVE', 'TEST'],
};
const fieldError = {
  key:
    Object.keys(catalogues.en).find((key) => key.startsWith('platform.error.')) ?? 'platform.oauth2.error.redirectUri',
  params: { uri: 'http://bad' },
};
/** As lib/platform/website-forms.ts reports every rejected redirect URI. */
const eachUriError = {
  key: 'platform.oauth2.error.redirectUri',
  params: { uri: 'http://a' },
  each: [{ uri: 'http://a' }, { uri: 'http://b' }],
};
const failedForm = (form: string) => ({
  form,
  message: '',
  values: { ...website, status: 'ACTIVE', redirectUris: ['http://bad'] },
  fields: {
    name: fieldError,
    domain: fieldError,
    language: fieldError,
    challenges: fieldError,
    regions: fieldError,
    status: fieldError,
    redirectUris: eachUriError,
  },
});

const confirmationParams = {
  environment: 'LIVE',
  name: 'Example Shop',
  key: 'pk_live_sample',
  clientId: 'live_sample',
  date: '2026-01-02 10:00 UTC',
  email: 'webmaster@example.test',
};
const confirmation = (heading: string, consequences: string[], button: string) => ({
  ...platform,
  confirmation: {
    heading: { key: heading, params: confirmationParams },
    consequences: consequences.map((key) => ({ key, params: confirmationParams })),
    button: { key: button, params: confirmationParams },
    action: '/platform/websites/1/keys/live/regenerate',
    back: '/platform/websites/1',
  },
});
const integration = {
  environment: 'LIVE',
  clientId: 'live_sample',
  redirectUri: 'https://shop.example/callback',
  serverSnippet: "app.get('/verify-age', ...)",
  tokenCommand: 'curl https://age.example/v1/oauth2/token',
  resourcesCommand: 'curl https://age.example/v1/oauth2/resources',
  buttonSnippet: '<a href="#">Verify</a>',
};
const checker = {
  environment: 'LIVE',
  publicKey: 'pk_live_sample',
  scriptTag: '<script src="https://age.example/v1/checker.js?key=pk_live_sample" async></script>',
  serverCheck: "import { jwtVerify } from 'jose';",
  csp: "Content-Security-Policy: script-src 'self' https://age.example",
};
/** A website's section (lib/platform/routes/website-routes.ts renderWebsiteTab): the tab, its navigation, a notice, a new secret. */
const section = (tab: string, extra: Record<string, unknown> = {}): Array<Record<string, unknown>> => [
  ...each(
    { ...platform, overview, tab, tabs: TABS, path: '/platform/websites/1', ...extra },
    'notice',
    keyParts('platform.notice.'),
  ),
  ...['client', 'webhook'].map((kind) => ({
    ...platform,
    overview,
    tab,
    tabs: TABS,
    path: '/platform/websites/1',
    ...extra,
    newSecret: {
      websiteId: 1,
      kind,
      label: kind === 'client' ? 'TEST' : 'https://hooks.example/in',
      secret: 'whsec_sample',
    },
  })),
];
const statisticsDay = (outcomes: Record<string, number>) => ({
  started: 3,
  passed: 0,
  reused: 0,
  refused: 0,
  abandoned: 0,
  ...outcomes,
});

export const PAGE_SAMPLES: Record<string, Array<Record<string, unknown>>> = {
  'interaction/error.njk': each(
    {
      developer: { error: 'temporarily_unavailable', clientId: 'x' },
      retryAfter: 30,
      retryUrl: '/v1/oauth2/checker?client_id=x&state=y',
      returnTo: 'https://shop.example/callback?error=access_denied',
      backUrl: '/back',
    },
    'kind',
    keyParts('interaction.error.', '.title'),
  ),
  'interaction/choose.njk': each(
    {
      ...visitor,
      signedIn: true,
      cards: keyParts('interaction.challenge.', '.about').map((name) => ({
        name,
        url: `/v1/oauth2/interaction/uid/challenge/${name}/start`,
        icon: `/static/challenge-${name}.svg`,
        time: '1 min',
        shares: 'nothing',
      })),
    },
    'notice',
    notices,
  ),
  'interaction/prompt.njk': [{ ...visitor, website }],
  'interaction/sign-in.njk': each(visitor, 'notice', notices),
  'interaction/result.njk': ASSURANCE_LEVELS.map((level, index) => ({
    ...visitor,
    minPasswordLength: 10,
    invalid: { username: true },
    // every other sample's location is unknown, so both wordings render
    place: index % 2 === 0 ? { country: 'United States', subdivision: 'Texas' } : { country: null, subdivision: null },
    verification: {
      country: 'US',
      countrySubdivision: 'US-TX',
      assuranceLevel: level,
      ageThreshold: 18,
      reused: index % 2 === 0,
    },
  })),

  'challenges/sandbox.njk': [
    ...each(
      {
        ...visitor,
        action: '/step',
        levels: ASSURANCE_LEVELS,
        simulated: 'selfie',
        choice: { outcome: 'pass', level: 'STANDARD', country: 'US', subdivision: 'US-TX' },
      },
      'notice',
      notices,
    ),
    ...each({ ...visitor, action: '/step', levels: ASSURANCE_LEVELS, choice: { outcome: 'refuse' } }, 'simulated', [
      ...CHALLENGE_NAMES,
    ]),
  ],
  'challenges/ticket.njk': [{ ...visitor, action: '/step' }],
  'challenges/selfie.njk': [{ ...visitor, captureUrl: '/capture' }],
  'challenges/email-age.njk': [{ ...visitor, sendUrl: '/send' }],
  'challenges/email-age-code.njk': [{ ...visitor, verifyUrl: '/verify', restartUrl: '/restart', key: 'k' }],
  'challenges/credit-card-stripe.njk': [
    { ...visitor, checkUrl: '/check', publishableKey: 'pk_test_stripe', clientSecret: 'pi_secret' },
  ],
  'challenges/federated.njk': [{ ...visitor, authorizationUrl: 'https://idp.example/authorize', leaveUrl: '/leave' }],
  // the problems lib/verification/challenges/federated renders
  'challenges/federated-problem.njk': ['invalid', 'used', 'unknown'].map((problem) => ({
    problem,
    provider: 'AgeKey',
    leaveUrl: '/leave',
  })),
  'challenges/federated-relay.njk': [{ action: '/relay' }],
  'challenges/eu-av.njk': [undefined, 'not_yet', 'limited', 'returning'].map((waiting) => ({
    ...visitor,
    age: 18,
    qrSvg: '<svg viewBox="0 0 1 1"></svg>',
    statusUrl: '/status',
    continueUrl: '/continue',
    leaveUrl: '/leave',
    walletLinks: [
      { scheme: 'av', href: 'av://?client_id=x' },
      { scheme: 'openid4vp', href: 'openid4vp://?client_id=x' },
    ],
    dcApiUrl: '/dc-api',
    dcRequests: '[]',
    waiting,
  })),

  'platform/base.njk': [platform],
  'platform/signin.njk': [
    { ...platform, webmaster: undefined, email: 'webmaster@example.test', failed: true },
    { ...platform, webmaster: undefined, codes: true },
    { ...platform, webmaster: undefined, email: 'webmaster@example.test', throttled: true, codes: true },
  ],
  // as lib/platform/routes/sign-in-code-routes.ts fills it
  'platform/signin-code.njk': [
    { ...platform, webmaster: undefined, minutes: 10, step: 'ask' },
    { ...platform, webmaster: undefined, minutes: 10, step: 'ask', invalid: true },
    { ...platform, webmaster: undefined, minutes: 10, step: 'enter', sent: true },
    { ...platform, webmaster: undefined, minutes: 10, step: 'enter', failed: true },
  ],
  'platform/register.njk': [
    { ...platform, webmaster: undefined, mail: false },
    { ...platform, webmaster: undefined, mail: true },
    // as lib/platform/routes/password-routes.ts fills it
    {
      ...platform,
      webmaster: undefined,
      mail: true,
      email: 'not-an-address',
      errors: { email: 'platform.register.error.email' },
    },
  ],
  'platform/link-sent.njk': [
    { ...platform, webmaster: undefined, asked: 'register', minutes: 30 },
    { ...platform, webmaster: undefined, asked: 'reset', minutes: 30 },
  ],
  'platform/password-forgot.njk': [
    { ...platform, webmaster: undefined },
    { ...platform, webmaster: undefined, email: 'x', errors: { email: 'platform.register.error.email' } },
  ],
  'platform/password-set.njk': [
    { ...platform, webmaster: undefined, expired: true, mail: true },
    { ...platform, webmaster: undefined, expired: true, mail: false },
    ...each(
      {
        ...platform,
        webmaster: undefined,
        token: 't',
        email: 'webmaster@example.test',
        purpose: 'reset',
        minLength: 12,
        maxLength: 256,
      },
      'errors',
      [undefined, { password: 'platform.register.error.password' }, { confirm: 'platform.register.error.confirm' }],
    ),
  ],
  // as lib/platform/routes/security-routes.ts fills it
  'platform/account-security.njk': [
    ...each(
      {
        ...platform,
        minLength: 12,
        maxLength: 256,
        hasPassword: true,
        needsCurrent: true,
        sessions: [
          {
            key: 'a'.repeat(64),
            browser: 'Firefox',
            system: 'Linux',
            address: '192.0.2.1',
            lastSeenAt: '2026-01-02 10:00 UTC',
            signedInAt: '2026-01-02 09:00 UTC',
            current: true,
          },
          {
            key: 'b'.repeat(64),
            address: null,
            lastSeenAt: '2026-01-01 10:00 UTC',
            signedInAt: '2026-01-01 09:00 UTC',
            current: false,
          },
        ],
      },
      'errors',
      [
        undefined,
        { current: 'platform.security.error.current', password: 'platform.register.error.password' },
        { confirm: 'platform.register.error.confirm' },
      ],
    ),
    {
      ...platform,
      minLength: 12,
      maxLength: 256,
      hasPassword: false,
      needsCurrent: true,
      changed: true,
      ended: true,
      sessions: [],
    },
  ],
  // as lib/platform/routes/second-factor-routes.ts fills it
  'platform/second-factor.njk': [
    { ...platform, step: 'sign-in' },
    { ...platform, step: 'sign-in', failed: true },
    { ...platform, step: 'sign-in', passkeys: true },
    {
      ...platform,
      step: 'manage',
      active: true,
      totp: false,
      required: true,
      codesLeft: 10,
      notice: 'added',
      removeRefused: true,
      passkeys: [{ id: 1, name: 'Chrome · macOS', added: '2026-11-28 10:00 UTC', lastUsed: null }],
    },
    {
      ...platform,
      step: 'manage',
      totp: true,
      notice: 'removed',
      passkeys: [{ id: 2, name: 'Passkey', added: '2026-11-28 10:00 UTC', lastUsed: '2026-11-28 11:00 UTC' }],
    },
    { ...platform, step: 'codes', codes: ['abcd-efgh-ijkl-mnop', 'qrst-uvwx-yz23-4567'] },
    { ...platform, step: 'manage', active: false, required: false },
    {
      ...platform,
      step: 'manage',
      active: false,
      required: true,
      enrolling: true,
      adding: { secret: 'ABCD EFGH', qr: '<svg viewBox="0 0 1 1"></svg>' },
      failed: true,
    },
    { ...platform, step: 'manage', active: true, required: false, codesLeft: 9, removeFailed: true },
    { ...platform, step: 'manage', active: true, required: true, codesLeft: 10 },
  ],
  'platform/account.njk': [
    { ...platform, others: true, may: everything },
    { ...platform, webmaster: { id: 1, email: 'webmaster@example.test' } },
  ],
  // as lib/platform/routes/key-routes.ts fills it
  'platform/keys.njk': [
    ...[everything, viewerMay].map((may) => ({
      ...platform,
      may,
      newToken: 'avk_sample',
      saved: 'revoked',
      websites: [website],
      expiries: ['never', '30', '90', '365'],
      failed: { values: { name: 'deploy', access: 'read', website: '1' }, message: 'platform.apiKeys.error.form' },
      keys: [
        {
          id: 1,
          name: 'deploy',
          access: 'write',
          website: undefined,
          memberEmail: 'a@example.test',
          createdAt: '2026-01-01 10:00 UTC',
          lastUsedAt: null,
          expiresAt: null,
          expired: false,
        },
        {
          id: 2,
          name: 'stats',
          access: 'read',
          website: 'Example Shop',
          memberEmail: 'a@example.test',
          createdAt: '2026-01-01 10:00 UTC',
          lastUsedAt: '2026-01-02 10:00 UTC',
          expiresAt: '2026-02-01 10:00 UTC',
          expired: false,
        },
        {
          id: 3,
          name: 'old',
          access: 'read',
          website: undefined,
          memberEmail: 'a@example.test',
          createdAt: '2026-01-01 10:00 UTC',
          lastUsedAt: null,
          expiresAt: '2026-01-02 10:00 UTC',
          expired: true,
        },
      ],
    })),
    { ...platform, may: everything, keys: [], websites: [], expiries: ['never'] },
  ],
  // as lib/platform/routes/member-routes.ts fills it
  'platform/members.njk': [
    ...each(
      {
        ...platform,
        may: everything,
        roles: ['owner', 'admin', 'developer', 'viewer'],
        canInvite: true,
        members: [
          {
            webmasterId: 1,
            email: 'webmaster@example.test',
            role: 'owner',
            since: '2026-01-01 10:00 UTC',
            founder: true,
          },
          {
            webmasterId: 2,
            email: 'dev@example.test',
            role: 'developer',
            since: '2026-01-01 10:00 UTC',
            founder: false,
          },
        ],
        invitations: [{ id: 1, email: 'new@example.test', role: 'viewer', expiresAt: '2026-01-03 10:00 UTC' }],
        failed: { values: { email: 'x' }, key: 'platform.members.error.invite' },
      },
      'notice',
      keyParts('platform.members.saved.'),
    ),
    {
      ...platform,
      webmaster: { ...platform.webmaster, id: 2 },
      may: viewerMay,
      roles: ['owner', 'admin', 'developer', 'viewer'],
      canInvite: false,
      members: [
        { webmasterId: 2, email: 'dev@example.test', role: 'viewer', since: '2026-01-01 10:00 UTC', founder: false },
      ],
      invitations: [],
      failed: { values: {}, message: 'An account always keeps an owner.' },
    },
    { ...platform, may: everything, roles: ['owner'], canInvite: false, members: [], invitations: [] },
  ],
  'platform/accounts.njk': [
    {
      ...platform,
      current: 1,
      memberships: [
        { accountId: 1, accountEmail: 'webmaster@example.test', role: 'owner' },
        { accountId: 2, accountEmail: 'shop@example.test', role: 'viewer' },
      ],
    },
    { ...platform, memberships: [] },
  ],
  'platform/invitation.njk': [
    ...[true, false].map((matches) => ({
      ...platform,
      matches,
      refused: !matches,
      invitation: {
        accountEmail: 'shop@example.test',
        email: 'webmaster@example.test',
        role: 'developer',
        expiresAt: '2026-01-03 10:00 UTC',
      },
    })),
    {
      ...platform,
      webmaster: undefined,
      invitation: {
        accountEmail: 'shop@example.test',
        email: 'webmaster@example.test',
        role: 'admin',
        expiresAt: '2026-01-03 10:00 UTC',
      },
    },
    { ...platform, webmaster: undefined, invitation: undefined },
  ],
  'platform/not-permitted.njk': [{ ...platform, role: 'viewer' }],
  'platform/websites.njk': [
    { ...platform, overviews: [overview], failed: failedForm('create') },
    { ...platform, overviews: [] },
  ],
  'platform/website-base.njk': section('overview'),
  'platform/website-overview.njk': [
    ...section('overview', {
      statistics: { environments: [] },
      legend: [],
      range: { from: '2026-01-01', to: '2026-01-30' },
      rangeProblem: 'Invalid range.',
    }),
    {
      ...section('overview')[0],
      range: { from: '2026-01-01', to: '2026-01-30' },
      legend: [{ outcome: 'passed', swatch: '<svg></svg>', label: 'Passed' }],
      statistics: {
        environments: [
          {
            environment: 'TEST',
            chart: '<svg></svg>',
            totals: statisticsDay({ passed: 2, refused: 1 }),
            split: [{ challenge: 'sandbox', passed: 2, refused: 1, reused: 0 }],
          },
        ],
      },
    },
  ],
  'platform/website-integrate.njk': [
    ...section('integrate', { checkers: [checker], integrations: [integration] }),
    ...section('integrate', { checkers: [checker], integrations: [] }),
  ],
  'platform/website-webhooks.njk': [
    ...section('webhooks', { events: ['verification.completed'], webhooks: [] }),
    ...section('webhooks', {
      events: ['verification.completed', 'key.regenerated'],
      failed: { values: { url: 'http://bad', events: ['key.regenerated'] }, message: 'The url must use https.' },
      overlap: { hours: 24, max: 168 },
      rotateFailed: { webhookId: 2, message: 'Invalid overlapHours.' },
      webhooks: [
        {
          id: 1,
          url: 'https://hooks.example/in',
          events: ['verification.completed'],
          createdAt: '2026-01-01 10:00 UTC',
          disabledAt: '2026-01-02 10:00 UTC',
          deliveries: [
            {
              messageId: 'msg_1',
              event: 'webhook.test',
              attempt: 1,
              attemptedAt: '2026-01-01 10:00 UTC',
              status: null,
              error: 'refused',
              durationMs: 3,
              nextRetryAt: '2026-01-01 10:01 UTC',
            },
          ],
        },
        {
          id: 2,
          url: 'https://hooks.example/other',
          events: ['key.regenerated'],
          createdAt: '2026-01-01 10:00 UTC',
          disabledAt: null,
          previousSecretExpiresAt: '2026-01-02 10:00 UTC',
          deliveries: [],
        },
      ],
    }),
  ],
  'platform/website-webhook-message.njk': (['pending', 'delivered', 'given_up'] as const).flatMap((state) => {
    const page = section('webhooks')[0]!;
    const hook = { id: 1, url: 'https://hooks.example/in', disabledAt: null };
    const failed = {
      attempt: 1,
      attemptedAt: '2026-01-01 10:00:00 UTC',
      status: 503,
      durationMs: 12,
      error: 'HTTP 503: the receiver did not accept the message',
      nextRetryAt: '2026-01-01 10:00:05 UTC',
      responseBody: 'down',
      responseTruncated: true,
    };
    const message = {
      messageId: 'msg_0123456789abcdef0123456789abcdef',
      event: 'webhook.test',
      createdAt: '2026-01-01 10:00:00 UTC',
      state,
      givenUpReason: state === 'given_up' ? 'backlog over 10000 messages' : null,
      body: { readable: '{\n  "type": "webhook.test"\n}', exact: '{"type":"webhook.test"}' },
      attempts: [
        failed,
        {
          ...failed,
          attempt: 2,
          status: 200,
          error: null,
          nextRetryAt: null,
          responseBody: '',
          responseTruncated: false,
        },
        { ...failed, attempt: 3, status: null, error: 'the connection was refused', responseBody: null },
      ],
    };
    return [
      { ...page, hook, message, notice: 'redelivered' },
      { ...page, may: viewerMay, hook, message: { ...message, body: null, attempts: [] } },
      { ...page, hook: { ...hook, disabledAt: '2026-01-02 10:00 UTC' }, message, refused: true },
    ];
  }),
  'platform/website-verifications.njk': [
    ...section('verifications', {
      outcomes: OUTCOMES,
      keptHours: 25,
      csvMax: 10000,
      filters: {},
      search: '',
      flows: [],
      next: null,
      older: false,
    }),
    ...OUTCOMES.map((outcome) => ({
      ...section('verifications')[0],
      outcomes: OUTCOMES,
      keptHours: 25,
      csvMax: 10000,
      filters: { outcome, environment: 'TEST' },
      search: `outcome=${outcome}`,
      next: 'abc',
      older: true,
      notFound: 'test_missing',
      problem: 'Invalid from or to.',
      flows: [
        {
          id: 'test_a',
          environment: 'TEST',
          completedAt: '2026-01-01T10:00:00.000Z',
          outcome,
          challenge: 'sandbox',
          country: 'DE',
          reused: outcome === 'verified',
        },
      ],
    })),
    ...OUTCOMES.map((outcome) => ({
      ...section('verifications')[0],
      outcomes: OUTCOMES,
      keptHours: 25,
      csvMax: 10000,
      rules: outcome === 'verified' ? ['preset fr 1 #0'] : [],
      flow: {
        id: 'test_a',
        environment: 'TEST',
        clientId: outcome === 'expired' ? null : 'test_client',
        startedAt: '2026-01-01T09:59:00.000Z',
        completedAt: '2026-01-01T10:00:00.000Z',
        outcome,
        challenge: 'sandbox',
        assuranceLevel: 'STANDARD',
        ageThreshold: 18,
        country: 'FR',
        countrySubdivision: 'FR-75',
        reused: true,
        returnedToWebsite: outcome !== 'expired',
      },
    })),
  ],
  'platform/website-activity.njk': [
    ...section('activity', { rows: [], next: null, older: false }),
    ...keyParts('platform.activity.actor.').map((type) => ({
      ...section('activity')[0],
      next: 5,
      older: true,
      rows: Object.keys(catalogues.en)
        .filter((key) => key.startsWith('platform.activity.action.'))
        .map((key, seq) => ({
          seq,
          at: '2026-01-01 10:00 UTC',
          actor: { type, id: '3' },
          address: '203.0.113.1',
          action: key.slice('platform.activity.action.'.length),
          changes: [{ field: 'name', before: 'A', after: 'B' }],
        })),
    })),
  ],
  'platform/website-settings.njk': [
    ...section('settings'),
    // the domain section (views/platform/domain.njk) not verified after a check, verified by its published token, by
    // the operator, and localhost (which only the operator can vouch for)
    ...(
      [
        ['shop.example', null],
        ['shop.example', 'published'],
        ['shop.example', 'operator'],
        ['localhost', null],
      ] as const
    ).map(([domain, verifiedBy]) => ({
      ...section('settings')[0],
      domainVerification: {
        domain,
        verified: verifiedBy !== null,
        verifiedBy,
        checkedAt: '2026-01-01T00:00:00.000Z',
        token: 'age-provider-verification=abc',
        dns: { name: `_age-provider.${domain}`, type: 'TXT', value: 'age-provider-verification=abc' },
        file: { url: `https://${domain}/.well-known/age-provider.txt`, content: 'age-provider-verification=abc' },
      },
    })),
    { ...section('settings')[0], failed: failedForm('website') },
    { ...section('settings')[0], overview: { website, oauth2: {} }, failed: failedForm('oauth2-LIVE') },
  ],
  // as lib/platform/routes/confirmation-routes.ts fills them
  'platform/confirm.njk': [
    confirmation(
      'platform.confirm.key.heading',
      ['platform.confirm.key.stops', 'platform.confirm.key.then'],
      'platform.keys.regenerate',
    ),
    confirmation(
      'platform.confirm.credentials.heading',
      ['platform.confirm.credentials.new', 'platform.confirm.credentials.grace', 'platform.confirm.credentials.again'],
      'platform.oauth2.regenerate',
    ),
    ...[false, true].map((mismatch) => {
      const sample = confirmation(
        'platform.confirm.delete.heading',
        ['platform.confirm.delete.stops', 'platform.confirm.delete.kept'],
        'platform.confirm.delete.button',
      );
      return {
        ...sample,
        mismatch,
        confirmation: {
          ...sample.confirmation,
          typed: { label: 'platform.confirm.delete.type', params: { name: 'Example Shop' } },
        },
      };
    }),
    (() => {
      const sample = confirmation(
        'platform.confirm.close.heading',
        ['platform.confirm.close.erased', 'platform.confirm.close.audit'],
        'platform.confirm.close.button',
      );
      return {
        ...sample,
        confirmation: {
          ...sample.confirmation,
          typed: { label: 'platform.confirm.close.type', params: { name: 'webmaster@example.test' } },
        },
      };
    })(),
  ],
};
