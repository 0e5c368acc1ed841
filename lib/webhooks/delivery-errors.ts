/**
 * The delivery log's words for an answer outside 2xx, so every attempt that did not deliver has an error to show
 * beside its status (a connection that failed is described by lib/security/outbound-get.ts connectionFailure).
 */
export const rejectedWith = (status: number): string =>
  status >= 300 && status < 400
    ? `HTTP ${status}: a redirect (redirects are not followed; register the final URL).`
    : `HTTP ${status}: the receiver did not accept the message (any 2xx does).`;
