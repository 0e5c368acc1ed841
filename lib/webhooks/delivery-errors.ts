/**
 * A failed connection in the words a webmaster needs: what went wrong (refused, timed out, TLS, reset), never the
 * system's message, which names the address connected to (an address inside the operator's network when private
 * addresses are allowed) and the operator's own resolver or proxy errors.
 */
const TLS_WORDS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "the receiver's certificate has expired",
  CERT_NOT_YET_VALID: "the receiver's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the receiver's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the receiver's certificate chain ends in an untrusted self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the receiver's certificate is not signed by a trusted authority (or its chain is incomplete)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the receiver's certificate is not signed by a trusted authority (or its chain is incomplete)",
  CERT_REVOKED: "the receiver's certificate is revoked",
  ERR_TLS_CERT_ALTNAME_INVALID: "the receiver's certificate does not name the URL's host",
};

const CONNECTION_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'Connection refused: nothing accepts connections at the URL’s host and port.',
  ECONNRESET: 'The connection was closed by the receiver before it answered.',
  EPIPE: 'The connection was closed by the receiver before the request was sent.',
  ETIMEDOUT: 'Timed out while connecting to the receiver.',
  EHOSTUNREACH: 'The receiver’s host cannot be reached.',
  ENETUNREACH: 'The receiver’s network cannot be reached.',
  HPE_INVALID_CONSTANT: 'The receiver’s answer is not valid HTTP.',
  HPE_INVALID_STATUS: 'The receiver’s answer is not valid HTTP.',
  HPE_HEADER_OVERFLOW: 'The receiver’s answer headers are too large.',
};

const isTls = (code: string): boolean =>
  code in TLS_WORDS || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code === 'EPROTO';

/** Why a request got no answer, from the error Node reported; the code is kept in brackets for a search. */
export function deliveryFailure(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (isTls(code)) return `TLS failed: ${TLS_WORDS[code] ?? 'the handshake did not complete'} (${code}).`;
  const words = CONNECTION_WORDS[code];
  if (words) return `${words} (${code})`;
  return code ? `The connection failed (${code}).` : 'The connection failed.';
}

/** The error of an attempt that got no whole answer within the timeout. */
export const timedOut = (timeoutMs: number): string => `Timed out: no whole answer within ${timeoutMs} ms.`;

/** The error of an attempt answered outside 2xx: the status in words, so the log reads the same for every failure. */
export const rejectedWith = (status: number): string =>
  status >= 300 && status < 400
    ? `HTTP ${status}: a redirect (redirects are not followed; register the final URL).`
    : `HTTP ${status}: the receiver did not accept the message (any 2xx does).`;
