import { createServer, type Server } from 'node:http';
import { createAgeProvider } from '../../app/app.js';
import { graceful } from '../../http/shutdown.js';
import { settlesWithin } from '../../time-limit.js';
import { CliError, output, type Command } from '../command.js';
import { checkDatabaseReachable } from '../database-reachable.js';

/** Listens on host:port; a port taken or not allowed is the operator's to fix, named by its setting in one line. */
async function listen(
  server: Server,
  port: number,
  host: string,
  setting: 'PORT' | 'OPERATIONS_PORT',
): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new CliError(
            `${setting}=${port}: ${host}:${port} is already in use by another process; stop it or set another ${setting}`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(
          new CliError(
            `${setting}=${port}: not allowed to listen on ${host}:${port} (ports below 1024 need privileges); set another ${setting}`,
          ),
        );
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new CliError(`${setting}=${port}: ${host} is not an address of this machine`));
      else reject(error);
    });
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

const signalled = (): Promise<string> =>
  new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

export const serveCommand: Command = {
  name: 'serve',
  summary: 'migrate the database and run the service',
  usage: `Usage: age-provider serve [--json]

Applies pending migrations, then serves every surface (OAuth2, External API, platform, health) on HOST:PORT, and
/metrics, /healthz and /readyz on OPERATIONS_HOST:OPERATIONS_PORT when OPERATIONS_PORT is set.
Configuration comes from environment variables: see docs/configuration.md.
Stops cleanly on SIGINT or SIGTERM. It drains first: /readyz answers 503 while it still serves for
SHUTDOWN_DELAY_MS, then the listener closes, every response closes its connection, in-flight requests finish, and
the process exits within SHUTDOWN_TIMEOUT seconds (exit code 1 when requests had to be cut).`,
  options: { json: { type: 'boolean' } },
  async run({ values }, io) {
    const started = Date.now();
    await checkDatabaseReachable(io.env.DATABASE_URL);
    const provider = await createAgeProvider({ env: io.env }, io.oidcAdapter);
    const {
      config,
      runtime: { log },
    } = provider;
    const stopped = signalled();
    const publicServer = createServer();
    const operationsServer = config.operationsPort === undefined ? undefined : createServer();
    const servers = operationsServer ? [publicServer, operationsServer] : [publicServer];
    // Follow requests from the first one, so a drain knows every response in flight.
    const drainers = servers.map((server) => graceful(server));
    // Koa answers its own errors: the handlers' promises are not the server's to await.
    const serve = provider.app.callback();
    const operate = provider.operations.callback();
    publicServer.on('request', (request, response) => void serve(request, response));
    operationsServer?.on('request', (request, response) => void operate(request, response));
    let listening: string;
    let operations: string | undefined;
    try {
      listening = await listen(publicServer, config.port, config.host, 'PORT');
      if (operationsServer)
        operations = await listen(operationsServer, config.operationsPort!, config.operationsHost, 'OPERATIONS_PORT');
    } catch (error) {
      for (const server of servers) server.close();
      await provider.close();
      throw error;
    }
    output(
      io,
      values.json === true,
      { listening, ...(operations ? { operations } : {}), issuer: config.issuer, startupMs: Date.now() - started },
      `age-provider listening on ${listening}${operations ? ` (operations on ${operations})` : ''} (issuer ${config.issuer}, database ${config.databaseUrl ? 'PostgreSQL' : `embedded in ${config.dataDir}`}) in ${Date.now() - started} ms`,
    );

    const signal = await stopped;
    const timeoutMs = config.shutdownTimeout * 1000;
    const deadline = Date.now() + timeoutMs;
    provider.drain();
    const draining = Promise.all(
      drainers.map((server) => server.drain({ delayMs: config.shutdownDelayMs, timeoutMs })),
    );
    log.info('shutting down: draining in-flight requests', { signal, delayMs: config.shutdownDelayMs, timeoutMs });
    const drained = (await draining).every(Boolean);
    const closed = await settlesWithin(provider.close(), Math.max(deadline - Date.now(), 0));
    if (!drained) log.warn('shutdown deadline reached: the remaining connections were cut', { timeoutMs });
    if (closed === 'failed') log.error('closing the database failed');
    if (closed === 'late') {
      log.error('shutdown deadline reached while closing the database: exiting anyway', { timeoutMs });
      process.exit(1);
    }
    return drained ? 0 : 1;
  },
};
