/** What bench/run.ts and the benchmarked server process (bench/server.ts) tell each other over IPC. */

export interface BenchTarget {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  publicKey: string;
}

export type ToServer = { type: 'count-sql' } | { type: 'report-sql' } | { type: 'stop' };
export type FromServer = { type: 'ready'; target: BenchTarget } | { type: 'sql'; counts: Record<string, number> };

/** Which endpoint a request belongs to, for the SQL count. */
export function endpointOf(url: string): string {
  const path = url.split('?')[0]!;
  if (/^\/v1\/oauth2\/interaction\/[^/]+\/challenge\//.test(path)) return 'interaction: challenge step';
  if (/^\/v1\/oauth2\/interaction\//.test(path)) return 'interaction: pages';
  if (/^\/v1\/oauth2\/(checker|login)\/./.test(path)) return 'authorization (resume)';
  if (/^\/v1\/oauth2\/(checker|login)$/.test(path)) return 'authorization';
  return path;
}
