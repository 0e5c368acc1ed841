import type { ChallengeModule } from '../../challenge.js';
import { createEuAvChallenge } from './challenge.js';
import { walletResponseRoutes } from './response-route.js';
import { euAvSettings, type EuAvSettings } from './settings.js';
import { createStatusLists } from './status-list.js';
import { fingerprintsOf, recordTrust, type ListTrust } from './trust-record.js';

/** eu_av loads when EU_AV_TRUSTED_ISSUERS or EU_AV_TRUSTED_LIST names what to trust; its wallet response endpoint comes with it. */
export const euAvModule: ChallengeModule<EuAvSettings> = {
  name: 'eu_av',
  settings: euAvSettings,
  async configure(runtime, settings) {
    if (!settings) return undefined;
    // What eu_av trusts is recorded each time it changes, for the evidence pack (docs/evidence.md).
    const files = fingerprintsOf(settings.trustedIssuers.current());
    const taken = (list: ListTrust | null) => recordTrust(runtime, runtime.clock.now(), { files, list });
    // With a trusted list, the anchors are the files' and the list's as last refreshed (trusted-list-source.ts).
    // Loaded only then: the XML signature libraries are of no use to an instance without a list.
    const list = settings.trustedList
      ? await (
          await import('./trusted-list-source.js')
        ).followTrustedList(runtime, settings.trustedList, settings.trustedIssuers, taken)
      : undefined;
    if (!list) await taken(null);
    const statuses = {
      lists: createStatusLists(runtime, { fetch: settings.statusLists.fetch }),
      unreachable: settings.statusLists.unreachable,
    };
    const trusting = { ...settings, ...(list ? { trustedIssuers: list.source } : {}), statuses };
    return {
      ...createEuAvChallenge(trusting, runtime.config.issuer),
      routes: walletResponseRoutes(runtime, trusting),
      ...(list ? { readiness: () => ({ trusted_list: list.report() }), available: () => list.available() } : {}),
    };
  },
};
