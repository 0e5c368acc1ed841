import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { cliDatabase, serveProcess, type ServeProcess } from './run.js';

/** One raw HTTP/1.1 connection: what the server wrote, and when it closed it. */
interface Connection {
  socket: Socket;
  received(): string;
  /** resolves once the received text contains `text` */
  receives(text: string): Promise<void>;
  closed: Promise<void>;
}

async function open(url: string): Promise<Connection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  const waiting: Array<{ wanted: string; resolve: () => void }> = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const wait of waiting.filter(({ wanted }) => text.includes(wanted))) wait.resolve();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => text,
    receives: (wanted) =>
      text.includes(wanted) ? Promise.resolve() : new Promise((resolve) => waiting.push({ wanted, resolve })),
    closed,
  };
}

const TOKEN_BODY =
  'grant_type=authorization_code&code=nothing&redirect_uri=https%3A%2F%2Fexample.test%2Fcb&client_id=nobody';

/** A token request whose headers the server has (it answered 100 Continue) and whose body is still to come. */
async function tokenRequestInFlight(url: string): Promise<Connection> {
  const connection = await open(url);
  connection.socket.write(
    `POST /v1/oauth2/token HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${TOKEN_BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await connection.receives('100 Continue');
  return connection;
}

/** The final response on a connection: status, lower-cased headers and body (the interim 100 Continue skipped). */
function finalResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const last = text.slice(text.lastIndexOf('HTTP/1.1 '));
  const [head = '', body = ''] = last.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('age-provider serve as a process', function () {
  this.timeout(180_000);
  let dataDir: string;
  let server: ServeProcess | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-serve-'));
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    server = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves /metrics on the operations listener only, health on both', async () => {
    server = await serveProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', OPERATIONS_PORT: '0' });
    const { listening, operations } = server.started;
    expect(operations).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${listening}/metrics`)).status).to.equal(404);
    const metrics = await fetch(`${operations!}/metrics`);
    expect(metrics.status).to.equal(200);
    expect(await metrics.text()).to.contain('process_resident_memory_bytes');
    for (const base of [listening, operations!]) {
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
  });

  it('on SIGTERM lets every in-flight request finish with Connection: close, closes connections idle for the margin and exits 0', async () => {
    server = await serveProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT: '60',
      SHUTDOWN_DELAY_MS: '0',
    });
    const { listening } = server.started;
    const idle = await open(listening);
    idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${new URL(listening).host}\r\n\r\n`);
    await idle.receives('{"status":"ok"}');
    const inFlight = await Promise.all(Array.from({ length: 8 }, () => tokenRequestInFlight(listening)));

    server.child.kill('SIGTERM');
    await server.logged('shutting down');
    await idle.closed;
    expect(finalResponse(idle.received()).headers.connection).to.equal('keep-alive');
    // The listener no longer accepts connections.
    await open(listening).then(
      (late) => {
        late.socket.destroy();
        expect.fail('a new connection was accepted while draining');
      },
      (error: NodeJS.ErrnoException) => expect(error.code).to.equal('ECONNREFUSED'),
    );

    for (const connection of inFlight) connection.socket.write(TOKEN_BODY);
    await Promise.all(inFlight.map((connection) => connection.closed));
    for (const connection of inFlight) {
      const response = finalResponse(connection.received());
      expect(response.status).to.equal(401);
      expect(response.headers.connection).to.equal('close');
      expect(JSON.parse(response.body)).to.have.property('error', 'invalid_client');
    }
    expect(await server.exited).to.equal(0);
  });

  it('on SIGTERM keeps serving for SHUTDOWN_DELAY_MS with /readyz at 503, then answers the next request on each keep-alive connection with Connection: close', async () => {
    const database = await cliDatabase('age-provider-serve-delay-');
    try {
      // A short delay: the next requests below come within the 2 s a connection may stay idle once the listener closed.
      server = await serveProcess({
        ...database.env,
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT: '30',
        SHUTDOWN_DELAY_MS: '600',
      });
      const { listening } = server.started;
      const host = new URL(listening).host;
      const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
      // keep-alive connections that answered once and are idle when the signal comes
      const connections = await Promise.all(Array.from({ length: 12 }, () => open(listening)));
      for (const connection of connections) connection.socket.write(get('/healthz'));
      await Promise.all(connections.map((connection) => connection.receives('{"status":"ok"}')));

      server.child.kill('SIGTERM');
      // half of them send at once (on the wire as the signal arrives), the others once the drain has begun
      const [early, late] = [connections.slice(0, 6), connections.slice(6)];
      for (const connection of early) connection.socket.write(get('/readyz'));
      await server.logged('shutting down');
      for (const connection of late) connection.socket.write(get('/readyz'));
      // a new connection is still accepted during the delay
      const fresh = await open(listening);
      fresh.socket.write(get('/healthz'));

      // every request answered, none reset, the connections kept alive; one the process read before it handled the
      // signal may still say ready
      for (const connection of [...early, ...late]) {
        while ((connection.received().match(/HTTP\/1\.1 /g) ?? []).length < 2 || !connection.received().endsWith('}')) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const response = finalResponse(connection.received());
        expect(connection.received().match(/HTTP\/1\.1 /g), connection.received()).to.have.length(2);
        expect(response.headers.connection, connection.received()).to.equal('keep-alive');
        if (late.includes(connection) || response.status === 503) {
          expect(response.status, connection.received()).to.equal(503);
          expect(JSON.parse(response.body)).to.deep.equal({ status: 'draining' });
        } else expect(JSON.parse(response.body)).to.deep.equal({ status: 'ready' });
      }
      await fresh.receives('{"status":"ok"}');
      expect(finalResponse(fresh.received()).headers.connection).to.equal('keep-alive');

      // Once the listener has closed, the next request on each connection that answered during the delay is answered
      // with Connection: close.
      while (
        await open(listening).then(
          (probe) => {
            probe.socket.destroy();
            return true;
          },
          () => false,
        )
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const connection of [...late, fresh]) connection.socket.write(get('/healthz'));
      for (const connection of [...late, fresh]) {
        await connection.closed;
        expect(connection.received().match(/HTTP\/1\.1 /g), connection.received()).to.have.length(
          connection === fresh ? 2 : 3,
        );
        expect(finalResponse(connection.received())).to.deep.include({ status: 200 });
        expect(finalResponse(connection.received()).headers.connection).to.equal('close');
      }
      // the others, idle since before the delay, are closed by the server without a request lost
      await Promise.all(early.map((connection) => connection.closed));
      expect(await server.exited).to.equal(0);
    } finally {
      await database.close();
    }
  });

  for (const setting of ['PORT', 'OPERATIONS_PORT'] as const) {
    it(`names ${setting} in one line, no stack, when its port is in use`, async () => {
      const taken = createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => taken.once('listening', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', OPERATIONS_PORT: '0', [setting]: String(port) };
        const failed = await serveProcess(env).then(
          () => 'started',
          (error: Error) => error.message,
        );
        expect(failed).to.equal(
          `the server did not start: ${setting}=${port}: 127.0.0.1:${port} is already in use by another process; stop it or set another ${setting}`,
        );
      } finally {
        taken.close();
      }
    });
  }

  it('exits anyway after SHUTDOWN_TIMEOUT when a request does not finish, with exit code 1', async () => {
    server = await serveProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SHUTDOWN_TIMEOUT: '1' });
    const stuck = await tokenRequestInFlight(server.started.listening);
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(1);
    await stuck.closed;
  });
});
