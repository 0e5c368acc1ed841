import type { BrandingOptions } from '../branding/settings.js';
import type { GeoOptions } from '../geo/settings.js';
import type { PolicyOptions } from '../policy/settings.js';
import { challengeSections, SECTIONS } from './sections.js';
import { retiredSettingsIn } from '../config/retired.js';
import { resolveSecrets } from '../config/secrets.js';
import { ConfigError, readSection, type SettingsSection } from '../config/settings.js';
import type { Config, Settings } from '../config/types.js';

/** What code may give instead of the environment (createAgeProvider's options): core settings by name, and three sections. */
export type ConfigOptions = Partial<Settings> & { branding?: BrandingOptions; geo?: GeoOptions; policies?: PolicyOptions };

/**
 * Reads every section (lib/app/sections.ts) from the environment, options winning, and resolves the shared secrets.
 * Every problem of every section is reported at once, in one ConfigError naming each variable.
 */
export async function loadConfig(options: ConfigOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<{ config: Config; warnings: string[] }> {
  const { branding, geo, policies, ...settings } = options;
  const problems: string[] = [];
  const read = <T, R>(section: SettingsSection<T, R>, given?: Partial<R>): T | undefined => {
    try {
      return readSection(section, env, given);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const core = read(SECTIONS.core, settings);
  const sections = {
    branding: read(SECTIONS.branding, branding),
    geo: read(SECTIONS.geo, geo),
    limits: read(SECTIONS.limits),
    clientCache: read(SECTIONS.clientCache),
    policies: read(SECTIONS.policies, policies),
    // Off (undefined) unless REDIS_URL is set.
    redis: read(SECTIONS.redis),
    mail: read(SECTIONS.mail),
    webhooks: read(SECTIONS.webhooks),
    statistics: read(SECTIONS.statistics),
  };
  const challenges = new Map(challengeSections().map(([name, section]) => [name, read(section)]));
  if (!core || !sections.branding || !sections.geo || !sections.limits || !sections.clientCache || !sections.policies || !sections.webhooks || !sections.statistics || problems.length > 0) throw new ConfigError(problems);
  let secrets;
  try {
    secrets = await resolveSecrets(core);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const { cookieKeys: _c, jwks: _j, sealingKey: _s, ...rest } = core;
  return { config: { ...rest, ...secrets, branding: sections.branding, geo: sections.geo, limits: sections.limits, clientCache: sections.clientCache, policies: sections.policies, redis: sections.redis, mail: sections.mail, webhooks: sections.webhooks, statistics: sections.statistics, challenges }, warnings: retiredSettingsIn(env) };
}
