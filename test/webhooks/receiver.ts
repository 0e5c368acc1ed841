import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, as it arrived. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webmaster's webhook endpoint on loopback: records every request and answers with `answer` (200 unless told). */
export interface Receiver {
  url: string;
  received: Received[];
  /** how the next requests are answered, by their index among all received */
  answer: (index: number) => number;
  /** the Location a redirect answer carries */
  location?: string;
  /** resolves once `count` requests in all have arrived */
  waitFor(count: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const waiting: Array<{ count: number; resolve: (received: Received[]) => void }> = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 200,
    waitFor(count) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received);
      return new Promise((resolve) => waiting.push({ count, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = receiver.received.length;
      receiver.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = receiver.answer(index);
      if (receiver.location) response.setHeader('location', receiver.location);
      response.end();
      for (const waiter of waiting.filter((candidate) => receiver.received.length >= candidate.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(receiver.received);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
