import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWKS } from 'oidc-provider';
import { createAgeProvider, type AgeProvider, type AgeProviderOptions } from '../../lib/app/app.js';
import { knexAdapter } from '../../adapters/knex.js';
import { createTestDatabase, type TestDatabase } from './database.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** Shared by every app a test process starts (key generation is slow). */
export const testSecrets = {
  cookieKeys: [randomBytes(32).toString('base64url')],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }] } as JWKS,
  sealingKey: randomBytes(32).toString('base64'),
};

export interface TestApp {
  /** base URL, e.g. http://127.0.0.1:41234 (also the issuer) */
  url: string;
  provider: AgeProvider;
  database: TestDatabase;
  server: Server;
  close(): Promise<void>;
}

/**
 * The real app on a real port with a database of its own. Options override the test defaults
 * (silent log, generated secrets, a temporary data folder, no environment variables read). `hostname` names the
 * issuer's host (e.g. localhost for WebAuthn, which refuses an IP address as relying-party id); the server listens on 127.0.0.1.
 * `shared` runs the app on a database another instance uses too (instances sharing one database, a restart).
 */
export async function startTestApp(
  options: AgeProviderOptions = {},
  { hostname = '127.0.0.1', shared }: { hostname?: string; shared?: TestDatabase } = {},
): Promise<TestApp> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostname}:${port}`;
  // A database `shared` by several instances outlives each of them: its creator drops it.
  const database = shared ?? (await createTestDatabase());
  const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-test-'));
  const cleanUp = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!shared) await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  let provider: AgeProvider;
  try {
    provider = await createAgeProvider(
      {
        env: {},
        logLevel: 'silent',
        issuer: url,
        port,
        dataDir,
        ...testSecrets,
        db: database.db,
        ...(database.url ? { databaseUrl: database.url } : {}),
        ...options,
      },
      knexAdapter,
    );
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const handle = provider.app.callback();
  server.on('request', (request, response) => void handle(request, response));
  return {
    url,
    provider,
    database,
    server,
    async close() {
      await provider.close();
      await cleanUp();
    },
  };
}

/**
 * The real app for the enclosing `describe`: started before its tests (mocha `before`), closed after them. The value
 * stands for the started app (its properties are read from it once `before` has run), so a suite reads
 * `app.url` and `app.provider` as if it had started the app itself.
 */
export function useApp(options: AgeProviderOptions = {}): TestApp {
  let started: TestApp | undefined;
  before(async () => {
    started = await startTestApp(options);
  });
  after(() => started?.close());
  return new Proxy({} as TestApp, {
    get(_, property) {
      if (!started) throw new Error('the app is used before its before() hook has started it');
      return Reflect.get(started, property);
    },
  });
}
