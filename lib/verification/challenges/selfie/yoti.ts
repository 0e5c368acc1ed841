import { createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv, type JSONSchemaType } from 'ajv';
import { ConfigError } from '../../../config/settings.js';
import type { Logger } from '../../../log.js';
import { callVendor, VendorUnavailableError } from '../vendors/http.js';
import type { FaceAgeEstimator, FaceEstimate } from './estimator.js';

/** Yoti AI Services, age estimation with anti-spoofing (https://developers.yoti.com/age-estimation/integration-guide). */
export const YOTI_AI_BASE_URL = 'https://api.yoti.com/ai/v1';
const ENDPOINT = '/age-antispoofing';

export interface YotiFaceSettings {
  /** the Yoti Hub SDK ID (X-Yoti-Auth-Id) */
  sdkId: string;
  /** path of the application's PEM private key downloaded from the Yoti Hub */
  keyFile: string;
  /** environment variable names, for configuration errors */
  keyFileEnv: string;
}

interface YotiAnswer {
  antispoofing: { prediction: 'real' | 'fake' | 'undetermined' };
  age: { age: number; st_dev: number };
}

const answerSchema: JSONSchemaType<YotiAnswer> = {
  type: 'object',
  required: ['antispoofing', 'age'],
  properties: {
    antispoofing: {
      type: 'object',
      required: ['prediction'],
      properties: { prediction: { type: 'string', enum: ['real', 'fake', 'undetermined'] } },
    },
    age: {
      type: 'object',
      required: ['age', 'st_dev'],
      properties: { age: { type: 'number', minimum: 0, maximum: 150 }, st_dev: { type: 'number', minimum: 0 } },
    },
  },
};
const isAnswer = new Ajv().compile(answerSchema);

function loadKey(settings: YotiFaceSettings): KeyObject {
  try {
    return createPrivateKey(readFileSync(settings.keyFile, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${settings.keyFileEnv} must name a readable PEM private key (${(error as Error).message})`);
  }
}

/**
 * Yoti's signed-request scheme: SHA256withRSA over "METHOD&endpoint?nonce=…&timestamp=…&base64(body)", base64 in
 * X-Yoti-Auth-Digest. The timestamp is in milliseconds, as Yoti's own Node SDK sends it.
 */
export function yotiDigest(key: KeyObject, method: string, endpointWithQuery: string, body: string): string {
  const message = `${method}&${endpointWithQuery}&${Buffer.from(body, 'utf8').toString('base64')}`;
  return sign('sha256', Buffer.from(message, 'utf8'), key).toString('base64');
}

export function yotiFaceAgeEstimator(
  settings: YotiFaceSettings,
  options: { timeoutMs: number; log: Logger },
): FaceAgeEstimator {
  const key = loadKey(settings);
  return {
    vendor: 'yoti',
    label: 'Yoti',
    async estimate(image): Promise<FaceEstimate> {
      const body = JSON.stringify({ img: image.toString('base64') });
      const endpoint = `${ENDPOINT}?nonce=${randomUUID()}&timestamp=${Date.now()}`;
      // Not retried: every call is billed, and the visitor can simply take another photo.
      const response = await callVendor(
        {
          vendor: 'yoti',
          operation: 'age-antispoofing',
          method: 'POST',
          url: `${YOTI_AI_BASE_URL}${endpoint}`,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json',
            'X-Yoti-Auth-Id': settings.sdkId,
            'X-Yoti-Auth-Digest': yotiDigest(key, 'POST', endpoint, body),
          },
          body,
          idempotent: false,
        },
        options,
      );
      const code = errorCode(response.body);
      if (response.status === 400 || response.status === 413) return { kind: 'unusable', code };
      if (response.status !== 200) {
        options.log.error('yoti refused our request: check SELFIE_YOTI_SDK_ID and the key', {
          status: response.status,
          code,
        });
        throw new VendorUnavailableError(`yoti answered ${response.status}`);
      }
      if (!isAnswer(response.body)) {
        options.log.warn('yoti answered in an unexpected shape', { status: response.status });
        throw new VendorUnavailableError('yoti answer malformed');
      }
      const { antispoofing, age } = response.body;
      return { kind: 'estimate', age: age.age, stDev: age.st_dev, liveness: antispoofing.prediction };
    },
  };
}

/** Yoti's error code (e.g. FACE_NOT_FOUND) when the body carries one: a fixed vocabulary, safe to log. */
function errorCode(body: unknown): string {
  const code = (body as { error_code?: unknown } | undefined)?.error_code;
  return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : 'UNKNOWN';
}
