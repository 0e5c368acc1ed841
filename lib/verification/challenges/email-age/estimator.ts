/** What an email-age vendor says about a verified address: over the threshold, not over it, or it cannot tell. */
export type EmailAgeAnswer = 'over' | 'not-over' | 'unknown';

/**
 * An email-age estimation vendor. The address must already be proven to belong to the visitor. Implementations
 * keep nothing and throw VendorUnavailableError when the vendor cannot answer. Swap the vendor by adding one.
 */
export interface EmailAgeEstimator {
  readonly vendor: string;
  /** the vendor's name as the visitor reads it */
  readonly label: string;
  /** the highest age threshold this vendor can vouch for */
  readonly maxThreshold: number;
  /** whether the vendor needs the visitor's country (ISO 3166-1 alpha-2) */
  readonly needsCountry: boolean;
  check(input: { address: string; country: string }): Promise<EmailAgeAnswer>;
}
