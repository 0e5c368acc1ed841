import type { Context } from 'koa';
import { browserLanguage } from '../i18n/negotiate.js';
import { render } from '../http/render.js';
import { mayDo, PERMISSIONS } from '../webmasters/roles.js';
import { webmasterOf } from './authentication.js';
import { onceValue } from './once.js';

/**
 * Renders views/platform/<template> in the browser's language, with the signed-in webmaster for the navigation, what
 * their role allows, and a fresh value for the forms that must have one effect (lib/platform/once.ts).
 */
export function renderPage(
  ctx: Context,
  template: string,
  variables: Record<string, unknown> = {},
  status = 200,
): void {
  const language = browserLanguage(ctx);
  const webmaster = webmasterOf(ctx);
  // What the role on the session's account allows: pages leave out the buttons it does not, and every secret for a viewer.
  const may = Object.fromEntries(
    PERMISSIONS.map((permission) => [
      permission,
      webmaster?.account ? mayDo(webmaster.account.role, permission) : false,
    ]),
  );
  render(ctx, `platform/${template}`, language, { once: onceValue(), ...variables, webmaster, may }, status);
}

/**
 * A timestamp as the platform shows it: unambiguous in every language, e.g. "2026-05-01 14:03 UTC"; with seconds
 * ("14:03:27 UTC") where events come seconds apart, as a webhook's deliveries and first retries do.
 */
export const formatTimestamp = (date: Date, { seconds = false } = {}): string =>
  `${date
    .toISOString()
    .slice(0, seconds ? 19 : 16)
    .replace('T', ' ')} UTC`;
