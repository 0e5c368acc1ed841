import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type JWKS } from 'oidc-provider';

/** Who the next visitor is at the upstream provider: an adult, a minor, or someone who cancels there. */
export type UpstreamVisitor = 'adult' | 'minor' | 'cancel';

const today = new Date();
const yearsAgo = (years: number): string => `${today.getUTCFullYear() - years}-01-01`;
const AGES: Record<Exclude<UpstreamVisitor, 'cancel'>, { birthdate: string; age: number }> = {
  adult: { birthdate: yearsAgo(30), age: 29 },
  minor: { birthdate: `${today.getUTCFullYear() - 15}-12-31`, age: 14 },
};

/** The provider's `sub` for each visitor: distinctive, so a test can prove it is stored and logged nowhere. */
export const UPSTREAM_SUBJECTS = {
  adult: `adult-${randomBytes(8).toString('hex')}`,
  minor: `minor-${randomBytes(8).toString('hex')}`,
} as const;
const kindOf = (accountId: string) => (accountId === UPSTREAM_SUBJECTS.adult ? 'adult' : 'minor');

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const SIGNING_KEYS = {
  keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }],
} as JWKS;

/**
 * A real second OpenID Connect provider (oidc-provider, in memory) on a loopback port, playing the third party a
 * federated challenge sends the visitor to. Its interaction pages are our own small handler: the visitor named in
 * `next` signs in and consents at once (or cancels). Its claims:
 * - scope `age`: `age_over_18` (boolean), `birthdate`, `assurance` ("high")
 * - scope `openid`: `age_thresholds`, answering the thresholds of the `claims` request parameter as AgeKey does.
 */
export class UpstreamProvider {
  next: UpstreamVisitor = 'adult';
  /** every path requested from it, to prove who called it */
  readonly requests: string[] = [];
  /** the `claims` request parameter of the last authorization (AgeKey's thresholds request) */
  lastClaimsRequest: string | undefined;
  private provider?: Provider;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  /**
   * Listens first, so the issuer is known before the clients (which need our app's URL) are registered. A real
   * browser keeps cookies per host, not per port: `localhost` keeps the provider's cookies apart from ours.
   */
  static async listen(hostname: '127.0.0.1' | 'localhost' = '127.0.0.1'): Promise<UpstreamProvider> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const upstream = new UpstreamProvider(server, `http://${hostname}:${port}`);
    server.on('request', (req, res) => {
      upstream.requests.push(req.url ?? '');
      upstream.handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    return upstream;
  }

  /** Starts answering as an OpenID provider with these clients. */
  start(clients: ClientMetadata[]): void {
    const provider = new Provider(this.issuer, {
      clients,
      jwks: SIGNING_KEYS,
      cookies: { keys: ['upstream-cookie-key-0123456789abcdef'] },
      responseTypes: ['code', 'id_token'],
      scopes: ['openid', 'age'],
      claims: { openid: ['sub', 'age_thresholds'], age: ['age_over_18', 'birthdate', 'assurance'] },
      conformIdTokenClaims: false,
      extraParams: ['claims'],
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false }, userinfo: { enabled: true } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (ctx, accountId) => ({
        accountId,
        claims: () => {
          const person = AGES[kindOf(accountId)];
          const requested = (() => {
            try {
              return (
                (JSON.parse(String(ctx.oidc.params?.['claims'] ?? '{}')) as { age_thresholds?: number[] })
                  .age_thresholds ?? []
              );
            } catch {
              return [];
            }
          })();
          return {
            sub: accountId,
            age_over_18: person.age >= 18,
            birthdate: person.birthdate,
            assurance: 'high',
            age_thresholds: Object.fromEntries(
              requested.map((threshold) => [String(threshold), person.age >= threshold]),
            ),
          };
        },
      }),
    });
    provider.on('authorization.accepted', (ctx) => {
      this.lastClaimsRequest = ctx.oidc.params?.['claims'] as string | undefined;
    });
    this.provider = provider;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const provider = this.provider;
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    if (!req.url?.startsWith('/interaction/')) return provider.callback()(req, res);
    const details = await provider.interactionDetails(req, res);
    if (this.next === 'cancel') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User aborted interaction' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = UPSTREAM_SUBJECTS[this.next];
    const clientId = String(details.params['client_id']);
    const grant = new provider.Grant({ accountId, clientId });
    grant.addOIDCScope(String(details.params['scope']));
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId }, consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: false },
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
