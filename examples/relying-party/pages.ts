import { MESSAGES, type Messages } from './messages.js';
import type { Verification } from './oauth2-client.js';
import type { RelyingPartySettings } from './settings.js';

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** Every page's document start, up to the site's stylesheet: its language and title. The page goes on with the rest of its head. */
export function documentStart(settings: RelyingPartySettings): string {
  return `<!doctype html>
<html lang="${settings.language}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(MESSAGES[settings.language].title)}</title>
  <link rel="stylesheet" href="/static/site.css">`;
}

function layout(settings: RelyingPartySettings, body: string, options: { returnToOpener?: boolean } = {}): string {
  const m = MESSAGES[settings.language];
  return `${documentStart(settings)}
</head>
<body${options.returnToOpener ? ' data-return-to-opener' : ''}>
  <header class="site"><strong>${escapeHtml(m.title)}</strong></header>
  <main>
${body}
  </main>
  <script src="/static/popup.js" defer></script>
  <script src="/static/requirement.js" defer></script>
</body>
</html>
`;
}

/**
 * The button (docs/integration.md, button guidelines): it names the service in the site's language, has the service blue
 * background with white text (contrast 7.7:1), and carries the service's logo made for dark backgrounds.
 * A plain link, so it works without JavaScript; popup.js opens it in a new window instead.
 */
function verifyButton(settings: RelyingPartySettings, m: Messages): string {
  return `    <p><a class="age-button" id="verify-button" href="/verify">
      <img src="${escapeHtml(settings.ageProviderUrl)}/static/logo-on-dark.svg" alt="" height="28">
      <span>${escapeHtml(m.button)}</span>
    </a></p>
    <p class="hint" id="verify-hint" hidden>${escapeHtml(m.buttonHint)}</p>`;
}

/** The age gate and the button; requirement.js swaps the gate for the open shop where the website's regions do not require verification. */
function gate(settings: RelyingPartySettings, m: Messages): string {
  const requirementUrl = `${settings.ageProviderUrl}/v1/requirement?key=${encodeURIComponent(settings.publicKey)}`;
  return `    <section id="gate" aria-labelledby="gate-heading" data-requirement-url="${escapeHtml(requirementUrl)}"
      data-text-required="${escapeHtml(m.gateRequired)}" data-text-required-unknown="${escapeHtml(m.gateRequiredUnknown)}">
      <h1 id="gate-heading">${escapeHtml(m.gateHeading)}</h1>
      <p>${escapeHtml(m.gateText)}</p>
      <p id="requirement" role="status" hidden></p>
    </section>
    <section id="open-shop" hidden data-text-not-required="${escapeHtml(m.gateNotRequired)}">
      <h1>${escapeHtml(m.title)}</h1>
      <p>${escapeHtml(m.welcome)}</p>
      <p id="not-required" role="status"></p>
    </section>
${verifyButton(settings, m)}
    <p class="hint"><a href="/script">${escapeHtml(m.scriptPage)}</a></p>`;
}

function formatExpiry(settings: RelyingPartySettings, expiresAt: number): string {
  return `${new Intl.DateTimeFormat(settings.language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(expiresAt * 1000))} UTC`;
}

/** ISO's "unknown" country: the provider could not tell where the visitor is. */
const UNKNOWN_COUNTRY = 'ZZ';

/** The country by name in the site's language, or the explanation of an unknown location. */
function countryName(settings: RelyingPartySettings, m: Messages, code: string): string {
  if (code === UNKNOWN_COUNTRY) return m.countryUnknown;
  return new Intl.DisplayNames([settings.language], { type: 'region', fallback: 'code' }).of(code) ?? code;
}

function result(settings: RelyingPartySettings, m: Messages, verification: Verification): string {
  const rows: Array<[string, string]> = [
    [m.fieldVerified, verification.verified ? m.yes : m.no],
    [m.fieldUid, verification.uid],
    [m.fieldCountry, countryName(settings, m, verification.country)],
    [m.fieldSubdivision, verification.country_subdivision ?? m.none],
    [m.fieldLevel, verification.assurance_level],
    [m.fieldThreshold, `${verification.age_threshold}+`],
    [m.fieldReused, verification.reused ? m.yes : m.no],
    [m.fieldExpires, formatExpiry(settings, verification.expires_at)],
  ];
  return `    <section id="result" class="${verification.verified ? 'verified' : 'not-verified'}" aria-labelledby="result-heading">
      <h1 id="result-heading">${escapeHtml(verification.verified ? m.verifiedHeading : m.notVerifiedHeading)}</h1>
      ${verification.verified ? `<p>${escapeHtml(m.welcome)}</p>` : ''}
      <dl>
${rows.map(([label, value]) => `        <dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`).join('\n')}
      </dl>
    </section>`;
}

const declinedNotice = (
  m: Messages,
): string => `    <section id="problem" class="not-verified" aria-labelledby="problem-heading">
      <h1 id="problem-heading">${escapeHtml(m.notVerifiedHeading)}</h1>
      <p>${escapeHtml(m.declined)}</p>
    </section>
`;

/** The shop's home page: the verification result when there is one, else the age gate (after a decline, saying so). */
export function homePage(
  settings: RelyingPartySettings,
  verification: Verification | undefined,
  returnToOpener: boolean,
  declined = false,
): string {
  const m = MESSAGES[settings.language];
  if (verification?.verified) return layout(settings, result(settings, m, verification), { returnToOpener });
  const before = verification ? result(settings, m, verification) : declined ? declinedNotice(m) : '';
  return layout(settings, `${before}${gate(settings, m)}`, { returnToOpener });
}

export type Problem = 'declined' | 'stateMismatch' | 'providerFailed';

export function problemPage(settings: RelyingPartySettings, problem: Problem): string {
  const m = MESSAGES[settings.language];
  return layout(
    settings,
    `    <section id="problem" aria-labelledby="problem-heading">
      <h1 id="problem-heading">${escapeHtml(m.notVerifiedHeading)}</h1>
      <p>${escapeHtml(m[problem])}</p>
      <p><a href="/">${escapeHtml(m.back)}</a></p>
    </section>`,
  );
}
