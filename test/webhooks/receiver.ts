import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** One request a receiver got, as it arrived. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** when it arrived (Date.now()) */
  at: number;
}

/** A webmaster's webhook endpoint on loopback: records every request and answers with `answer` (200 unless told). */
export interface Receiver {
  url: string;
  received: Received[];
  /** how the next requests are answered, by their index among all received */
  answer: (index: number) => number;
  /** the Location a redirect answer carries */
  location?: string;
  /** milliseconds before each answer is sent (0 unless told) */
  delayMs: number;
  /** the body of each answer (empty unless told) */
  replyBody: string | Buffer;
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
    delayMs: 0,
    replyBody: '',
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
      receiver.received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      response.statusCode = receiver.answer(index);
      if (receiver.location) response.setHeader('location', receiver.location);
      setTimeout(() => response.end(receiver.replyBody), receiver.delayMs);
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

/** An endpoint that accepts every connection and never answers: what a hung or overloaded receiver looks like. */
export interface SilentReceiver {
  url: string;
  /** connections accepted in all */
  accepted: number;
  /** the most connections it held open at once */
  mostAtOnce: number;
  close(): Promise<void>;
}

export async function startSilentReceiver(): Promise<SilentReceiver> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    silent.accepted += 1;
    sockets.add(socket);
    silent.mostAtOnce = Math.max(silent.mostAtOnce, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume();
  });
  const silent: SilentReceiver = {
    url: '',
    accepted: 0,
    mostAtOnce: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return silent;
}
