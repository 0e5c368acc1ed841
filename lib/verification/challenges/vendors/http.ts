import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../log.js';

/** The vendor cannot answer now (down, timing out, overloaded, or answering nonsense): offer another challenge. */
export class VendorUnavailableError extends Error {
  override name = 'VendorUnavailableError';
}

export interface VendorRequest {
  /** vendor name for the logs, e.g. "yoti" */
  vendor: string;
  /** what the call does, for the logs (never the URL: it may hold a vendor's identifier) */
  operation: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** safe to send twice (a GET, or a POST carrying an idempotency key): only then is it retried */
  idempotent: boolean;
}

export interface VendorResponse {
  status: number;
  /** the parsed JSON body, or undefined when the body is not JSON */
  body: unknown;
}

export interface CallOptions {
  timeoutMs: number;
  log: Logger;
  /** extra tries for an idempotent request after a network error, a timeout, a 429 or a 5xx */
  retries?: number;
}

const RETRY_PAUSE_MS = 200;

/**
 * One HTTPS call to a vendor with a timeout per try. 5xx, 429, timeouts and network errors become
 * VendorUnavailableError (after bounded retries when the request is idempotent); any other status is returned.
 * Only the vendor, operation, status and duration are logged: never a URL or a body, which may hold identifiers or personal data.
 */
export async function callVendor(request: VendorRequest, options: CallOptions): Promise<VendorResponse> {
  const tries = 1 + (request.idempotent ? (options.retries ?? 2) : 0);
  let problem = '';
  for (let attempt = 1; attempt <= tries; attempt++) {
    if (attempt > 1) await sleep(RETRY_PAUSE_MS * 2 ** (attempt - 2));
    const started = Date.now();
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
      const text = await response.text();
      const fields = {
        vendor: request.vendor,
        operation: request.operation,
        status: response.status,
        ms: Date.now() - started,
        attempt,
      };
      if (response.status >= 500 || response.status === 429) {
        options.log.warn('vendor unavailable', fields);
        problem = `status ${response.status}`;
        continue;
      }
      options.log.debug('vendor call', fields);
      return { status: response.status, body: parseJson(text) };
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      problem = timedOut ? 'timeout' : 'network error';
      options.log.warn('vendor unreachable', {
        vendor: request.vendor,
        operation: request.operation,
        problem,
        ms: Date.now() - started,
        attempt,
      });
    }
  }
  throw new VendorUnavailableError(`${request.vendor} unavailable: ${problem}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
