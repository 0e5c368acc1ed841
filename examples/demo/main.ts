/**
 * `npm start`: age-provider on the embedded database (or DATABASE_URL) plus the demo relying party, seeded and wired.
 * Settings as for `age-provider serve` (docs/configuration.md); SITE_LANGUAGE sets the demo shop's language.
 */
import { useServerHeap } from '../../lib/cli/heap.js';
import type { Demo } from './demo.js';

// The server's heap settings (as for `age-provider serve`) go first: loading the modules below is what first grows
// V8's young generation, so they are imported after.
useServerHeap();
const { ConfigError, DatabaseInUseError, Refusal } = await import('../../lib/index.js');
const { RelyingPartySettingsError } = await import('../relying-party/settings.js');
const { startDemo } = await import('./demo.js');

function instructions(demo: Demo): string {
  const { webmaster, website, oauth2 } = demo.seed;
  const password = webmaster.password
    ? `password ${webmaster.password}${webmaster.created ? ' (generated now, kept in DATA_DIR/demo.json)' : ' (from DATA_DIR/demo.json)'}`
    : 'password unknown (the account predates DATA_DIR/demo.json)';
  return `
age-provider demo is running (started in ${demo.startupMs} ms)

  age-provider          ${demo.providerUrl}
  demo relying party    ${demo.relyingPartyUrl}   ("${website.name}", TEST client ${oauth2.clientId})
  webmaster platform    ${demo.providerUrl}/platform   sign in as ${webmaster.email}, ${password}

Next steps:
  1. Open ${demo.relyingPartyUrl} and click "Verify my age with Age Provider".
  2. In the window that opens, accept the prompt; in the TEST sandbox choose "pass".
  3. The demo shop shows the verification result it read from the Resources endpoint.

Press Ctrl-C to stop both.
`;
}

try {
  const demo = await startDemo();
  process.stdout.write(instructions(demo));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write('stopping...\n');
  await demo.close();
} catch (error) {
  const portTaken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
  // Refusal: the seeding services refused a demo record, e.g. a callback on a non-loopback HOST over http.
  const explained =
    error instanceof ConfigError ||
    error instanceof DatabaseInUseError ||
    error instanceof RelyingPartySettingsError ||
    error instanceof Refusal;
  if (!portTaken && !explained) throw error;
  const hint = portTaken ? '; choose other ports with PORT (the demo shop takes PORT + 1)' : '';
  process.stderr.write(`age-provider demo: ${(error as Error).message}${hint}\n`);
  process.exitCode = 1;
}
