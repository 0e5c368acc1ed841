import { Ajv, type JSONSchemaType } from 'ajv';
import type { Logger } from '../../../log.js';
import { callVendor, VendorUnavailableError } from '../vendors/http.js';
import type { EmailAgeAnswer, EmailAgeEstimator } from './estimator.js';

/** Yoti's email address check (https://developers.yoti.com/age-verification/email), headless, over 18 only. */
export const YOTI_EMAIL_CHECK_URL = 'https://age.yoti.com/api/v2/non-interactive';

export interface YotiEmailSettings {
  /** the Yoti Age API key (Authorization: Bearer) */
  apiKey: string;
  /** the Yoti SDK ID (Yoti-SDK-Id header) */
  sdkId: string;
}

interface YotiEmailAnswer {
  status: 'COMPLETE' | 'FAIL' | 'ERROR' | 'INSUFFICIENT_DATA';
  result: boolean;
}

const answerSchema: JSONSchemaType<YotiEmailAnswer> = {
  type: 'object',
  required: ['status', 'result'],
  properties: {
    status: { type: 'string', enum: ['COMPLETE', 'FAIL', 'ERROR', 'INSUFFICIENT_DATA'] },
    result: { type: 'boolean' },
  },
};
const isAnswer = new Ajv().compile(answerSchema);

export function yotiEmailAgeEstimator(
  settings: YotiEmailSettings,
  options: { timeoutMs: number; log: Logger },
): EmailAgeEstimator {
  return {
    vendor: 'yoti',
    label: 'Yoti',
    // Yoti's documentation: "threshold: must be configured to 18".
    maxThreshold: 18,
    needsCountry: true,
    async check({ address, country }): Promise<EmailAgeAnswer> {
      // Not retried: a POST without an idempotency key, billed per call.
      const response = await callVendor(
        {
          vendor: 'yoti',
          operation: 'email-check',
          method: 'POST',
          url: YOTI_EMAIL_CHECK_URL,
          headers: {
            Authorization: `Bearer ${settings.apiKey}`,
            'Yoti-SDK-Id': settings.sdkId,
            'Content-Type': 'application/json',
            Accept: 'application/json',
          },
          body: JSON.stringify({ type: 'OVER', threshold: 18, evidence: { email: { address }, country } }),
          idempotent: false,
        },
        options,
      );
      // A 400 is Yoti filtering out an address it will not check: that proves nothing about the visitor.
      if (response.status === 400) return 'unknown';
      if (response.status !== 200 && response.status !== 201) {
        options.log.error('yoti refused the email check: check EMAIL_AGE_YOTI_API_KEY and EMAIL_AGE_YOTI_SDK_ID', {
          status: response.status,
        });
        throw new VendorUnavailableError(`yoti answered ${response.status}`);
      }
      if (!isAnswer(response.body)) {
        options.log.warn('yoti answered in an unexpected shape', { status: response.status });
        throw new VendorUnavailableError('yoti answer malformed');
      }
      const { status, result } = response.body;
      // COMPLETE with result true is the only "over 18"; FAIL is under 18; ERROR (adversarial signals) and
      // INSUFFICIENT_DATA prove nothing either way.
      if (status === 'COMPLETE' && result) return 'over';
      if (status === 'FAIL') return 'not-over';
      return 'unknown';
    },
  };
}
