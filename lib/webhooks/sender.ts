import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { connectionFailure } from '../security/outbound-get.js';
import type { Destination } from './destination.js';

/** The start of a receiver's answer, as the delivery log keeps it. */
interface AnswerExcerpt {
  /** the first RESPONSE_KEPT_BYTES of the body, as UTF-8 (NUL characters replaced: PostgreSQL text cannot hold them) */
  body: string;
  /** the body was longer than what is kept */
  truncated: boolean;
}

/** How one delivery ended: the receiver's status and the start of its answer, or why there is none. */
export type SendResult =
  | ({ status: number; error?: never; timedOut?: never } & AnswerExcerpt)
  | { status?: never; error: string; /** no whole answer within the timeout */ timedOut?: boolean };

/** A receiver's answer is not read beyond this: its status and its start are all that matter. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** What the delivery log keeps of an answer: enough for an error message or a stack trace's first lines. */
export const RESPONSE_KEPT_BYTES = 1024;

/** The bytes up to the last whole UTF-8 character: a character cut at the limit is left out, not garbled. */
function wholeCharacters(bytes: Buffer): Buffer {
  let start = bytes.length - 1;
  while (start > 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > bytes.length ? bytes.subarray(0, start) : bytes;
}

const excerptOf = (chunks: Buffer[], size: number): AnswerExcerpt => ({
  body: wholeCharacters(Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES))
    .toString('utf8')
    .replaceAll('\0', '\uFFFD'),
  truncated: size > RESPONSE_KEPT_BYTES,
});

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
        const kept: Buffer[] = [];
        const answered = (): SendResult => ({ status: response.statusCode ?? 0, ...excerptOf(kept, size) });
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_KEPT_BYTES) kept.push(chunk);
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) finish(answered());
        });
        response.on('end', () => finish(answered()));
        response.on('error', (error) => finish({ error: connectionFailure(error) }));
      },
    );
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms`, timedOut: true }), timeoutMs);
    // The webmaster reads this in the delivery log: what failed, never the address connected to.
    outgoing.on('error', (error) => finish({ error: connectionFailure(error) }));
    outgoing.end(body);
  });
}
