import { createServer } from 'node:http';
import { createAgeProvider } from '../../app.js';
import { output, type Command } from '../command.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'migrate the database and run the service',
  usage: `Usage: age-provider serve [--json]

Applies pending migrations, then serves every surface (OAuth2, External API, platform, health) on HOST:PORT.
Configuration comes from environment variables: see docs/configuration.md.
Stops cleanly on SIGINT or SIGTERM.`,
  options: { json: { type: 'boolean' } },
  async run({ values }, io) {
    const started = Date.now();
    const provider = await createAgeProvider({ env: io.env });
    const { config } = provider;
    const server = createServer(provider.app.callback());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    output(io, values.json === true, { listening: `http://${config.host}:${port}`, issuer: config.issuer, startupMs: Date.now() - started },
      `age-provider listening on http://${config.host}:${port} (issuer ${config.issuer}, database ${config.databaseUrl ? 'PostgreSQL' : `embedded in ${config.dataDir}`}) in ${Date.now() - started} ms`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await provider.close();
    return 0;
  },
};
