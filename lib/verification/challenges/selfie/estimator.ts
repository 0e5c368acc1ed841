/** What a facial age estimation vendor answers for one still image. */
export type FaceEstimate =
  | {
      kind: 'estimate';
      /** estimated age in years */
      age: number;
      /** the vendor's uncertainty of that estimate, in years (a quality score) */
      stDev: number;
      /** the anti-spoofing verdict: a live face, a presented spoof, or no verdict */
      liveness: 'real' | 'fake' | 'undetermined';
    }
  /** the vendor could not use the image (no face, several faces, too dark, too small...); `code` is the vendor's */
  | { kind: 'unusable'; code: string };

/**
 * A facial age estimation vendor. Implementations send the image and keep nothing; they throw
 * VendorUnavailableError when the vendor cannot answer. Swap the vendor by adding one of these.
 */
export interface FaceAgeEstimator {
  readonly vendor: string;
  /** the vendor's name as the visitor reads it in the consent text */
  readonly label: string;
  estimate(image: Buffer): Promise<FaceEstimate>;
}
