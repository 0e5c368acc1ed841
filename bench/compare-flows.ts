/** The flow shapes `npm run bench:compare` drives against age-provider and vanilla oidc-provider alike. */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { walkSandboxSteps, type SandboxAction } from '../test/helpers/visitor.js';
import { Browser, type Page } from '../test/helpers/browser.js';
import { percentile, round } from './flows.js';

export const VANILLA_CLIENT = {
  clientId: 'bench',
  clientSecret: 'bench-secret-bench-secret-bench-secret',
  redirectUri: 'http://127.0.0.1:9/callback',
};

/** A server under test: where its endpoints are, its client, and its process (for CPU and memory). */
export interface Target {
  name: string;
  url: string;
  pid: number;
  paths: { authorization: string; token: string; resources: string };
  client: { clientId: string; clientSecret: string; redirectUri: string };
  /** what turns the authorization into the five-request shortcut (age-provider: test_outcome=pass) */
  shortcut: Record<string, string>;
}

let visitors = 0;
/** A distinct address per visitor (the server trusts the proxy), so per-IP limits see many visitors. */
const nextVisitor = (): Record<string, string> => {
  visitors += 1;
  return { 'x-forwarded-for': `10.${(visitors >> 16) & 255}.${(visitors >> 8) & 255}.${visitors & 255}` };
};

/**
 * Authorization (PKCE S256): the shortcut, or age-provider's pages walked for at most `steps` of the visitor's
 * actions. Returns where it stopped, what the visitor did, and the PKCE verifier.
 */
async function authorize(
  target: Target,
  pages: boolean,
  steps?: number,
): Promise<{ page: Page; actions: SandboxAction[]; verifier: string; visitor: Browser }> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: target.client.clientId,
    redirect_uri: target.client.redirectUri,
    response_type: 'code',
    scope: 'read',
    state: 'bench',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(pages ? {} : target.shortcut),
  });
  const done = new URL(target.client.redirectUri).origin;
  const visitor = new Browser(target.url, { headers: nextVisitor(), stopAt: done });
  const start = await visitor.open(`${target.paths.authorization}?${query.toString()}`);
  const { page, actions } = pages
    ? await walkSandboxSteps(visitor, start, done, 'accept', steps)
    : { page: start, actions: [] };
  return { page, actions, verifier, visitor };
}

/** Authorization (PKCE S256) up to the code at the redirect_uri: the shortcut, or age-provider's pages. */
export async function obtainCode(target: Target, pages = false): Promise<{ code: string; verifier: string }> {
  const { page, verifier, visitor } = await authorize(target, pages);
  const code = page.location?.searchParams.get('code');
  if (!code) throw new Error(`${target.name}: the flow did not end with a code:\n${visitor.trail()}`);
  return { code, verifier };
}

/** age-provider's pages, from the authorization to at most `steps` of the visitor's actions; what the visitor did. */
export async function walkPages(target: Target, steps?: number): Promise<SandboxAction[]> {
  return (await authorize(target, true, steps)).actions;
}

export async function exchange(target: Target, minted: { code: string; verifier: string }): Promise<string> {
  const { clientId, clientSecret, redirectUri } = target.client;
  const response = await fetch(`${target.url}${target.paths.token}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...nextVisitor(),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: minted.code,
      code_verifier: minted.verifier,
      redirect_uri: redirectUri,
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token)
    throw new Error(`${target.name}: token ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function readResources(target: Target, accessToken: string): Promise<void> {
  const response = await fetch(`${target.url}${target.paths.resources}`, {
    headers: { authorization: `Bearer ${accessToken}`, ...nextVisitor() },
  });
  const body = (await response.json()) as { resources?: { verified?: boolean } };
  if (response.status !== 200 || body.resources?.verified !== true)
    throw new Error(`${target.name}: Resources ${response.status}`);
}

/** Whole flow: authorization → interaction → resume → token → Resources. */
export async function wholeFlow(target: Target, pages = false): Promise<void> {
  await readResources(target, await exchange(target, await obtainCode(target, pages)));
}

/** CPU time (user + system) the process has used, in ms, from /proc (clock ticks of 10 ms on Linux). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The process's peak resident memory so far, in MB (VmHWM). */
export function peakRssMb(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

export interface PhaseResult {
  operations: number;
  failures: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerOperation: number;
  /** this process's CPU per operation: the load generator shares the machine with the server and PostgreSQL */
  loadCpuMsPerOperation: number;
}

/** Work done before each batch of a phase, outside its clock and its CPU count (e.g. minting the codes it exchanges). */
export interface Batches {
  size: number;
  prepare(first: number, end: number): Promise<void>;
}

/**
 * Runs `operation` `count` times, `concurrency` at a time, timing each and the server's CPU over the whole. With
 * `batches`, the operations run in batches of `batches.size`, each after its `prepare`, which neither clock sees.
 */
export async function phase(
  target: Target,
  count: number,
  concurrency: number,
  operation: (index: number) => Promise<void>,
  batches?: Batches,
): Promise<PhaseResult> {
  const durations: number[] = [];
  let failures = 0;
  let seconds = 0;
  let cpu = 0;
  let loadMicroseconds = 0;
  const size = batches?.size ?? count;
  for (let first = 0; first < count; first += size) {
    const end = Math.min(count, first + size);
    await batches?.prepare(first, end);
    let next = first;
    const cpuBefore = cpuMs(target.pid);
    const loadBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < end) {
          const index = next;
          next += 1;
          const begun = performance.now();
          try {
            await operation(index);
            durations.push(performance.now() - begun);
          } catch (error) {
            failures += 1;
            if (failures === 1) console.error(`  first failure: ${(error as Error).message}`);
          }
        }
      }),
    );
    seconds += (performance.now() - started) / 1000;
    cpu += cpuMs(target.pid) - cpuBefore;
    const load = process.cpuUsage(loadBefore);
    loadMicroseconds += load.user + load.system;
  }
  durations.sort((a, b) => a - b);
  return {
    operations: durations.length,
    failures,
    perSecond: round(durations.length / seconds),
    p50Ms: round(percentile(durations, 50)),
    p99Ms: round(percentile(durations, 99)),
    cpuMsPerOperation: round(cpu / Math.max(1, durations.length), 2),
    loadCpuMsPerOperation: round(loadMicroseconds / 1000 / Math.max(1, durations.length), 2),
  };
}
