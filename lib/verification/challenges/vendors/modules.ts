import type { ChallengeModule } from '../../registry.js';
import { creditCardModule } from '../credit-card/challenge.js';
import { emailAgeModule } from '../email-age/challenge.js';
import { selfieModule } from '../selfie/challenge.js';

/** The challenges backed by a vendor API; each loads only when its vendor is configured (docs/challenges.md). */
export const VENDOR_CHALLENGE_MODULES: readonly ChallengeModule[] = [selfieModule, emailAgeModule, creditCardModule];
