/**
 * The yardstick for `npm run bench:compare`: vanilla oidc-provider from node_modules with its memory adapter, one
 * confidential client, scope `read` (no `openid`), an interaction that finishes itself on a GET, and a Resources
 * route that reads the access token, so the same five-request flow runs against both servers. Prints `ready <url>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { VANILLA_CLIENT } from './compare-flows.js';

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: VANILLA_CLIENT.clientId,
      client_secret: VANILLA_CLIENT.clientSecret,
      redirect_uris: [VANILLA_CLIENT.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'read',
    },
  ],
  scopes: ['read'],
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['bench-cookie-key'] },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
});
const handleProvider = provider.callback();

/** The interaction finishes itself: a grant with `read`, login and consent, back to the resume URL. */
async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId: 'visitor', clientId: String(details.params['client_id']) });
  grant.addOIDCScope('read');
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: 'visitor' }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

/** What a resource server on oidc-provider does: find the token, check it, answer. */
async function resources(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const value = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const token = value ? await provider.AccessToken.find(value) : undefined;
  const ok = token !== undefined && !token.isExpired;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(ok ? { resources: { verified: true, uid: token.accountId } } : { error: 'invalid_token' }));
}

server.on('request', (req: IncomingMessage, res: ServerResponse) => {
  const path = (req.url ?? '/').split('?')[0]!;
  const answer =
    req.method === 'GET' && path.startsWith('/interaction/')
      ? finishInteraction(req, res)
      : req.method === 'GET' && path === '/resources'
        ? resources(req, res)
        : handleProvider(req, res);
  void Promise.resolve(answer).catch((error: unknown) => {
    res.statusCode = 500;
    res.end(String(error));
  });
});
process.stdout.write(`ready ${issuer}\n`);
process.on('SIGINT', () => server.close(() => process.exit(0)));
