import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { serveProcess, type ServeProcess } from './run.js';

interface Tally {
  /** answers as the service gives them outside a drain: 200 from /healthz, 401 invalid_client from the token endpoint */
  expected: number;
  /** answers per client */
  answered: number[];
  /** any other answer */
  unexpected: string[];
  /** connections reset or closed under a request that had been sent */
  resets: string[];
}

const TOKEN_BODY =
  'grant_type=authorization_code&code=nothing&redirect_uri=https%3A%2F%2Fexample.test%2Fcb&client_id=nobody';

type Answer = { status: number; body: string; close: boolean } | { error: string };

/** One request on a keep-alive agent: its status, body and whether it closes its connection, or the socket error's code. */
function send(agent: Agent, base: string, post: boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const sent = request(
      `${base}${post ? '/v1/oauth2/token' : '/healthz'}`,
      {
        agent,
        method: post ? 'POST' : 'GET',
        headers: post
          ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': TOKEN_BODY.length }
          : {},
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () =>
          resolve({ status: response.statusCode!, body: text, close: response.headers.connection === 'close' }),
        );
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ error: `${error.code ?? error.message}` }));
    sent.end(post ? TOKEN_BODY : undefined);
  });
}

/**
 * A client on its own keep-alive connection sending one request after another until an answer says
 * `Connection: close` (it moves away, as a client does to another instance behind a load balancer), or the server
 * refuses its connection.
 */
async function hammer(base: string, tally: Tally, index: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let sent = 0; ; sent++) {
      const post = (sent + index) % 2 === 0;
      const answer = await send(agent, base, post);
      if ('error' in answer) {
        // The listener closed before this client's first connection: it moves on.
        if (answer.error === 'ECONNREFUSED') return;
        tally.resets.push(answer.error);
        continue;
      }
      const wanted = post ? answer.status === 401 && answer.body.includes('invalid_client') : answer.status === 200;
      tally.answered[index]! += 1;
      if (wanted) tally.expected++;
      else tally.unexpected.push(`${answer.status} ${answer.body.slice(0, 100)}`);
      if (answer.close) return;
    }
  } finally {
    agent.destroy();
  }
}

describe('a drain under keep-alive load, clients straight on one instance', function () {
  this.timeout(300_000);
  let dataDir: string;
  let server: ServeProcess | undefined;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-drain-'));
  });
  after(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every request sent on a keep-alive connection as the drain begins: no reset, no answer but the usual one', async () => {
    // No delay: the listener closes as the signal arrives, when most clients' next request is on its way on a
    // connection that has just answered (idle to Node until that request is parsed).
    server = await serveProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SHUTDOWN_TIMEOUT: '30',
      SHUTDOWN_DELAY_MS: '0',
    });
    const base = server.started.listening;
    const tally: Tally = { expected: 0, answered: Array.from({ length: 24 }, () => 0), unexpected: [], resets: [] };
    const clients = Array.from({ length: 24 }, (_, index) => hammer(base, tally, index));
    // Every client has had answers on its keep-alive connection before the signal. (A connection still in the
    // kernel's accept queue when the listener closes is reset by the kernel: no server can answer that one.)
    while (tally.answered.some((count) => count < 2)) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    await Promise.all(clients);
    expect(await server.exited).to.equal(0);
    expect(tally.resets, 'connections reset under a sent request').to.deep.equal([]);
    expect(tally.unexpected).to.deep.equal([]);
  });
});
