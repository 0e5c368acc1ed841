import type { CspDirectives } from '../../../http/security-headers.js';

/** How a card check ended, as the processor reports it. */
export type CardResult =
  /** the card was authenticated (3-D Secure where the issuer asks for it) and is a credit card */
  | 'credit'
  /** authenticated, but a debit, prepaid or unknown-funding card: it proves nothing about age */
  | 'not-credit'
  /** not completed: declined, authentication failed or abandoned, or not this authorization's check */
  | 'incomplete';

/**
 * A payment processor that checks a card without charging it; the card data goes from the visitor's browser to the
 * processor's own library, never through us. Swap the processor by adding one of these (with its browser page).
 */
export interface CardProcessor {
  readonly vendor: string;
  /** the processor's name as the visitor reads it */
  readonly label: string;
  /** the page template that collects the card with the processor's library */
  readonly template: string;
  /** the processor's origins that template needs, added to its CSP */
  readonly csp: Partial<CspDirectives>;
  /** values the page needs (e.g. the publishable key) */
  readonly browser: Record<string, string>;
  /** Opens a check bound to `reference` (the interaction uid); `clientSecret` goes to the browser library. */
  begin(reference: string): Promise<{ id: string; clientSecret: string }>;
  /** Reads the check's result from the processor (never from the browser), refusing one not bound to `reference`. */
  result(id: string, reference: string): Promise<CardResult>;
}
