import { outboundTimeoutSetting, type SettingsSection } from '../../../config/settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';
import type { YotiFaceSettings } from './yoti.js';

export interface SelfieSettings extends ChallengeBasics {
  /** years added to the age threshold: an estimate must reach threshold + buffer ("Challenge 25" practice) */
  ageBuffer: number;
  /** estimates less certain than this (vendor st_dev, years) are retaken, not judged */
  maxStDev: number;
  timeoutMs: number;
}

/** The selfie settings and its vendor's credentials. */
export interface SelfieSetup {
  settings: SelfieSettings;
  yoti: YotiFaceSettings;
}

interface Raw extends SelfieSettings {
  vendor: 'yoti';
  yotiSdkId: string;
  yotiKeyFile: string;
}

/** The selfie section: on as soon as a selfie vendor is named or its credentials are given (docs/challenges.md "selfie"). */
export const selfieSettings: SettingsSection<SelfieSetup | undefined, Raw> = {
  enabledBy: ['SELFIE_VENDOR', 'SELFIE_YOTI_SDK_ID', 'SELFIE_YOTI_KEY_FILE'],
  spec: {
    ...basicsSpec('SELFIE', 'selfie'),
    vendor: { env: 'SELFIE_VENDOR', schema: { type: 'string', enum: ['yoti'] }, default: 'yoti' },
    ageBuffer: { env: 'SELFIE_AGE_BUFFER', schema: { type: 'integer', minimum: 0, maximum: 15 }, default: 7 },
    maxStDev: { env: 'SELFIE_MAX_ST_DEV', schema: { type: 'number', exclusiveMinimum: 0, maximum: 20 }, default: 6 },
    timeoutMs: outboundTimeoutSetting,
    yotiSdkId: { env: 'SELFIE_YOTI_SDK_ID', schema: { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } },
    yotiKeyFile: { env: 'SELFIE_YOTI_KEY_FILE', schema: { type: 'string', minLength: 1 } },
  },
  finish: ({ vendor: _yoti, yotiSdkId, yotiKeyFile, ...settings }) => ({
    settings,
    yoti: { sdkId: yotiSdkId, keyFile: yotiKeyFile, keyFileEnv: 'SELFIE_YOTI_KEY_FILE' },
  }),
};
