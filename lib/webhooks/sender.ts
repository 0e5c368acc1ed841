import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { connectionFailure } from '../security/outbound-get.js';
import type { Destination } from './destination.js';

/** How one delivery ended: the receiver's status, or why there is none. */
export type SendResult =
  | { status: number; error?: never; timedOut?: never }
  | { status?: never; error: string; /** no whole answer within the timeout */ timedOut?: boolean };

/** A receiver's answer is not read beyond this: only its status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Connects to the address checked for this delivery whatever the host resolves to now (TLS still checks the host name). */
const pinnedLookup =
  (destination: Destination): LookupFunction =>
  (_host, options, callback) => {
    if (options.all)
      (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    else callback(null, destination.address, destination.family);
  };

/**
 * POSTs `body` to the destination with `headers`, within `timeoutMs` from the first byte sent to the whole answer.
 * Redirects are answers like any other (never followed).
 */
export function send(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<SendResult> {
  const request = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(result);
    };
    const outgoing = request(
      destination.url,
      {
        method: 'POST',
        lookup: pinnedLookup(destination),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'age-provider-webhooks',
        },
      },
      (response: IncomingMessage) => {
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) finish({ status: response.statusCode ?? 0 });
        });
        response.on('end', () => finish({ status: response.statusCode ?? 0 }));
        response.on('error', (error) => finish({ error: connectionFailure(error) }));
      },
    );
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms`, timedOut: true }), timeoutMs);
    // The webmaster reads this in the delivery log: what failed, never the address connected to.
    outgoing.on('error', (error) => finish({ error: connectionFailure(error) }));
    outgoing.end(body);
  });
}
