import type { WebhookMessage } from '../webhooks/inspection.js';
import { formatTimestamp } from './page.js';

/** A time of the delivery log as the page shows it: to the second, since attempts and first retries come seconds apart. */
const shown = (iso: string): string => formatTimestamp(new Date(iso), { seconds: true });

/** A JSON body laid out for reading; a body that is not JSON (it always is, but the log must show anything) as it is. */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * One message as its page shows it: times to the second, and the body sent twice over, laid out for reading and as the
 * exact bytes the signature covered (what a receiver that fails to verify must compare with). Every attempt sends the
 * same body; the latest one recorded is shown (attempts refused before a request was made recorded none).
 */
export function messageView(message: WebhookMessage) {
  const sent = message.attempts.findLast((attempt) => attempt.requestBody !== null)?.requestBody ?? null;
  return {
    ...message,
    createdAt: shown(message.createdAt),
    body: sent === null ? null : { readable: readable(sent), exact: sent },
    attempts: message.attempts.map((attempt) => ({
      ...attempt,
      attemptedAt: shown(attempt.attemptedAt),
      nextRetryAt: attempt.nextRetryAt === null ? null : shown(attempt.nextRetryAt),
    })),
  };
}
