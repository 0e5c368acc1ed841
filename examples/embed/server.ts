/**
 * Embedding age-provider in an operator's own Koa 3 app, the way node-oidc-provider is embedded:
 * the operator keeps their routes and mounts ours beside them.
 *
 *   npx tsx examples/embed/server.ts          (PORT, DATABASE_URL, ... as for `age-provider serve`)
 */
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import mount from 'koa-mount';
import { createAgeProvider, type AgeProvider, type AgeProviderOptions } from '../../lib/index.js';
import { knexAdapter } from '../../adapters/knex.js';

export interface EmbeddedServer {
  /** the operator's own app, with age-provider mounted in it */
  app: Koa;
  server: Server;
  ageProvider: AgeProvider;
  close(): Promise<void>;
}

export async function startEmbedded(
  options: AgeProviderOptions = {},
  port = Number(process.env.PORT ?? 3000),
): Promise<EmbeddedServer> {
  const ageProvider = await createAgeProvider(options, knexAdapter);

  const app = new Koa();
  // Mounted middleware runs in the parent's context: its cookie keys and proxy setting are the ones that count.
  app.keys = ageProvider.runtime.cookieKeys;
  app.proxy = ageProvider.config.trustProxy;

  // The operator's own route, served beside ours.
  app.use(async (ctx, next) => {
    if (ctx.path !== '/operator/status') return next();
    ctx.body = { operator: 'example', ageProvider: ageProvider.config.issuer };
  });
  app.use(mount(ageProvider.app));

  const handle = app.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(port, ageProvider.config.host, resolve));
  return {
    app,
    server,
    ageProvider,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ageProvider.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ageProvider } = await startEmbedded();
  console.log(`operator app with age-provider mounted on ${ageProvider.config.issuer}`);
}
