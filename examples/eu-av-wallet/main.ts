/**
 * A test wallet an operator points at their own age-provider, built on the test suite's independent wallet
 * (test/verification/challenges/eu-av/wallet.ts). Two commands (docs/eu-av.md):
 *
 *   npx tsx examples/eu-av-wallet/main.ts issuer [--dir DIR]
 *     makes a test attestation provider (a root and a document signer) in DIR; trust its root.pem with
 *     EU_AV_TRUSTED_ISSUERS to try eu_av end to end. Never trust it in production: its keys sit in DIR.
 *
 *   npx tsx examples/eu-av-wallet/main.ts answer 'av://?…' [--dir DIR] [--pid] [--under] [--form] [--decline]
 *     answers the request in a wallet link (the page's "Open my app on this device", or the QR code's text) as a
 *     wallet would: an AV attestation (or with --pid the PID) with age_over_NN true (false with --under), posted to
 *     the request's response_uri as JSON (or with --form as vp_token[<id>] fields); --decline says no instead.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  answerRequest,
  AV_DOCTYPE,
  createTestIssuer,
  issueAttestation,
  PID_DOCTYPE,
  postToVerifier,
  readWalletRequest,
  type TestIssuer,
} from '../../test/verification/challenges/eu-av/wallet.js';

const FILES = { root: 'root.pem', signer: 'signer.pem', key: 'signer-key.json' } as const;

async function makeIssuer(dir: string): Promise<void> {
  const issuer = await createTestIssuer('age-provider test AV');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, FILES.root), issuer.rootPem);
  await writeFile(join(dir, FILES.signer), issuer.signerPem);
  await writeFile(join(dir, FILES.key), JSON.stringify(issuer.signerKey), { mode: 0o600 });
  console.log(
    `Test attestation provider written to ${dir}.\nTrust it on a test deployment only:\n  EU_AV_TRUSTED_ISSUERS=${join(dir, FILES.root)}`,
  );
}

async function readIssuer(dir: string): Promise<TestIssuer> {
  const [rootPem, signerPem, key] = await Promise.all(
    Object.values(FILES).map((file) => readFile(join(dir, file), 'utf8')),
  );
  return { rootPem: rootPem!, signerPem: signerPem!, signerKey: JSON.parse(key!) as TestIssuer['signerKey'] };
}

async function answer(
  dir: string,
  link: string,
  options: { pid: boolean; under: boolean; form: boolean; decline: boolean },
): Promise<void> {
  const request = readWalletRequest(link);
  // What a wallet checks before it answers: the redirect_uri client identifier names the response URI it posts to.
  if (
    !request.responseUri.startsWith('https://') &&
    !/^http:\/\/(localhost|127\.0\.0\.1)[:/]/.test(request.responseUri)
  )
    throw new Error(`refusing to post to ${request.responseUri}: not https`);
  if (request.clientId !== `redirect_uri:${request.responseUri}`)
    throw new Error('client_id does not name the response_uri: not an eu_av request');
  console.log(`Request for ${request.element}, answering ${request.responseUri}`);

  let result: { status: number; body: unknown };
  if (options.decline) {
    const response = await postToVerifier(request.responseUri, { error: 'access_denied', state: request.state });
    result = { status: response.status, body: await response.json() };
  } else {
    const element = /^age_over_(\d{2})$/.exec(request.element) ? request.element : 'age_over_18';
    const attestation = await issueAttestation(
      await readIssuer(dir),
      { [element]: !options.under },
      {},
      options.pid ? PID_DOCTYPE : AV_DOCTYPE,
    );
    result = await answerRequest(link, attestation, {}, options.form ? 'form' : 'json');
  }
  console.log(`The service answered ${result.status}: ${JSON.stringify(result.body)}`);
  const back = (result.body as { redirect_uri?: unknown } | null)?.redirect_uri;
  if (typeof back === 'string')
    console.log(`Same-device request: open this address in the browser that shows the check to finish it:\n  ${back}`);
  else if (result.status === 200)
    console.log('Cross-device request: the page that shows the QR code continues by itself (or press Continue).');
  process.exitCode = result.status === 200 ? 0 : 1;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string', default: 'eu-av-test-issuer' },
    pid: { type: 'boolean', default: false },
    under: { type: 'boolean', default: false },
    form: { type: 'boolean', default: false },
    decline: { type: 'boolean', default: false },
  },
});
const [command, link] = positionals;
if (command === 'issuer') await makeIssuer(values.dir);
else if (command === 'answer' && link) await answer(values.dir, link, values);
else {
  console.error(
    'usage: examples/eu-av-wallet/main.ts issuer [--dir DIR]\n       examples/eu-av-wallet/main.ts answer <wallet link> [--dir DIR] [--pid] [--under] [--form] [--decline]',
  );
  process.exitCode = 2;
}
