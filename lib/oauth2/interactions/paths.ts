import type { ChallengeName } from '../../verification/challenge.js';
import { OAUTH2_PATHS } from '../protocol.js';

/** Every page of one interaction lives under the path oidc-provider sends the visitor to (its cookie is scoped there). */
export function interactionPaths(uid: string) {
  const root = OAUTH2_PATHS.interaction(encodeURIComponent(uid));
  return {
    root,
    consent: `${root}/consent`,
    choose: `${root}/choose`,
    signIn: `${root}/sign-in`,
    reuse: `${root}/reuse`,
    cancel: `${root}/cancel`,
    result: `${root}/result`,
    saveResult: `${root}/result/save`,
    continueResult: `${root}/result/continue`,
    passkeyRegisterOptions: `${root}/passkey/register/options`,
    passkeyRegister: `${root}/passkey/register`,
    passkeySignInOptions: `${root}/passkey/sign-in/options`,
    passkeySignIn: `${root}/passkey/sign-in`,
    step: (challenge: ChallengeName, step: string) => `${root}/challenge/${challenge}/${encodeURIComponent(step)}`,
  };
}

export type InteractionPaths = ReturnType<typeof interactionPaths>;
