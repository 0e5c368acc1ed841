import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';

/** One sample's value in a Prometheus text exposition, by its name and exact label set; undefined when absent. */
export function sampleOf(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const labelSet = (pairs: string[][]): string =>
    JSON.stringify(pairs.map((pair) => pair.join('=')).sort((a, b) => a.localeCompare(b)));
  const wanted = labelSet(Object.entries(labels));
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, label, value]) => [
      label,
      value,
    ]);
    if (labelSet(found as string[][]) === wanted) return Number(match[3]);
  }
  return undefined;
}

/** The operations listener of `app`, as `age-provider serve` runs it on OPERATIONS_PORT. */
export async function serveOperations(app: TestApp): Promise<{ url: string; close(): Promise<void> }> {
  const handle = app.provider.operations.callback();
  const server: Server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
