import type { Runtime } from '../../../runtime.js';
import { anySet, outboundTimeoutSetting, readSettings } from '../../../config/env-settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';
import type { FaceAgeEstimator } from './estimator.js';
import { yotiFaceAgeEstimator } from './yoti.js';

export interface SelfieSettings extends ChallengeBasics {
  /** years added to the age threshold: an estimate must reach threshold + buffer ("Challenge 25" practice) */
  ageBuffer: number;
  /** estimates less certain than this (vendor st_dev, years) are retaken, not judged */
  maxStDev: number;
  timeoutMs: number;
}

const YOTI_KEYS = { sdkId: 'SELFIE_YOTI_SDK_ID', keyFile: 'SELFIE_YOTI_KEY_FILE' } as const;

/** The selfie settings and its vendor, or undefined when the operator configured no selfie vendor. */
export function loadSelfieSettings(runtime: Runtime): { settings: SelfieSettings; estimator: FaceAgeEstimator } | undefined {
  const { env } = runtime;
  if (!anySet(env, ['SELFIE_VENDOR', ...Object.values(YOTI_KEYS)])) return undefined;
  const settings = readSettings<SelfieSettings & { vendor: 'yoti' }>(env, {
    ...basicsSpec('SELFIE', 'selfie'),
    vendor: { env: 'SELFIE_VENDOR', schema: { type: 'string', enum: ['yoti'] }, default: 'yoti' },
    ageBuffer: { env: 'SELFIE_AGE_BUFFER', schema: { type: 'integer', minimum: 0, maximum: 15 }, default: 7 },
    maxStDev: { env: 'SELFIE_MAX_ST_DEV', schema: { type: 'number', exclusiveMinimum: 0, maximum: 20 }, default: 6 },
    timeoutMs: outboundTimeoutSetting,
  });
  const yoti = readSettings<{ sdkId: string; keyFile: string }>(env, {
    sdkId: { env: YOTI_KEYS.sdkId, schema: { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } },
    keyFile: { env: YOTI_KEYS.keyFile, schema: { type: 'string', minLength: 1 } },
  });
  const estimator = yotiFaceAgeEstimator({ ...yoti, keyFileEnv: YOTI_KEYS.keyFile }, { timeoutMs: settings.timeoutMs, log: runtime.log });
  return { settings, estimator };
}
