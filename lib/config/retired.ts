/**
 * Settings an earlier version read and this one does not, with what replaced them. A deployment upgraded with its old
 * environment would otherwise lose the setting without a word; each one still set is named at start-up.
 */
const RETIRED_SETTINGS: ReadonlyArray<{ variable: string; replacedBy: string }> = [
  { variable: 'EU_AV_WALLET_SCHEME', replacedBy: 'EU_AV_WALLET_SCHEMES (comma-separated, default av,openid4vp)' },
];

/** The retired variables: read at start-up only to be named (test/config/documented.test.ts counts them as read). */
export const retiredVariables = (): string[] => RETIRED_SETTINGS.map(({ variable }) => variable);

/** One warning per retired setting still present in `env`. */
export const retiredSettingsIn = (env: NodeJS.ProcessEnv): string[] =>
  RETIRED_SETTINGS.filter(({ variable }) => env[variable] !== undefined).map(
    ({ variable, replacedBy }) => `${variable} is no longer read and has no effect: set ${replacedBy} instead`,
  );
