import type { ChallengeName } from '../../verification/challenge.js';
import { OAUTH2_PATHS } from '../protocol.js';

/**
 * The interaction's routes, relative to its root: the router registers them from this table and the pages build
 * their links from it, so each path is written once.
 */
export const INTERACTION_ROUTES = {
  root: '/',
  consent: '/consent',
  choose: '/choose',
  signIn: '/sign-in',
  reuse: '/reuse',
  cancel: '/cancel',
  result: '/result',
  saveResult: '/result/save',
  continueResult: '/result/continue',
  passkeyRegisterOptions: '/passkey/register/options',
  passkeyRegister: '/passkey/register',
  passkeySignInOptions: '/passkey/sign-in/options',
  passkeySignIn: '/passkey/sign-in',
  step: '/challenge/:name/:step',
} as const;

type PageName = Exclude<keyof typeof INTERACTION_ROUTES, 'root' | 'step'>;
const PAGE_NAMES = (Object.keys(INTERACTION_ROUTES) as Array<keyof typeof INTERACTION_ROUTES>).filter(
  (name): name is PageName => name !== 'root' && name !== 'step',
);

/** Every page of one interaction lives under the path oidc-provider sends the visitor to (its cookie is scoped there). */
export function interactionPaths(uid: string) {
  const root = OAUTH2_PATHS.interaction(encodeURIComponent(uid));
  const pages = Object.fromEntries(PAGE_NAMES.map((name) => [name, root + INTERACTION_ROUTES[name]])) as Record<
    PageName,
    string
  >;
  return {
    root,
    ...pages,
    step: (challenge: ChallengeName, step: string) =>
      root + INTERACTION_ROUTES.step.replace(':name', challenge).replace(':step', encodeURIComponent(step)),
  };
}

export type InteractionPaths = ReturnType<typeof interactionPaths>;
