/**
 * V8 heap settings for a long-running server process (`age-provider serve`, `npm start`), chosen at run time because
 * the CLI is started as `node bin/age-provider.js` and cannot put flags on its own command line. The command lines we
 * ship (`npm start`, the Dockerfile, the systemd unit) also carry the young generation's cap (SHIPPED_NODE_FLAG),
 * where V8 reads it from the heap's set-up; this run-time cap is for every other way of starting the server. The
 * process does not restart itself with the flag (process.execve): where that fails, Node.js aborts instead of
 * throwing, and an unprivileged container stopped at start that way.
 *
 * Why (docs/performance.md "Start-up and memory" and "Measurements behind code choices"): with V8's defaults a server
 * whose live heap is small peaked at several times that in RSS under load. Two defaults made most of it:
 * - the young generation grows to two 16 MB semi-spaces and keeps them (loading the CLI's modules alone grows it
 *   there; Node 24 grows it further): capped at two 8 MB ones;
 * - after a full collection the old generation may grow to 4x its live size before the next one: 1.5x here.
 * Together they cut the peak by about a third for a little more garbage collection and the same requests per second;
 * either alone did not.
 *
 * An operator who sets any of these V8 flags (on the command line or in NODE_OPTIONS) keeps their own choice.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** MB per semi-space; the young generation is two of them */
const MAX_SEMI_SPACE_MB = 8;
/** The cap as a Node.js flag, for the command lines we ship (test/cli/heap.test.ts checks they carry it). */
export const SHIPPED_NODE_FLAG = `--max-semi-space-size=${MAX_SEMI_SPACE_MB}`;
/** the old generation may grow by this much over its live size before the next full collection */
const HEAP_GROWING_PERCENT = 50;

const YOUNG_GENERATION_FLAGS = [
  '--max-semi-space-size',
  '--min-semi-space-size',
  '--semi-space-growth-factor',
  '--max-heap-size',
];
const OLD_GENERATION_FLAGS = ['--heap-growing-percent'];

/** The flags node was started with: its own arguments and NODE_OPTIONS, `_` and `-` alike as V8 accepts both. */
function startFlags(execArgv: readonly string[], nodeOptions: string): string[] {
  return [...execArgv, ...nodeOptions.split(/\s+/)].map((flag) => flag.split('=')[0]!.replaceAll('_', '-'));
}

/**
 * Caps the young generation at two `MAX_SEMI_SPACE_MB` semi-spaces. V8 reads its maximum only when the heap is set up,
 * but it reads the growth factor at each growth: after every collection, growth is allowed (factor 2, V8's default)
 * while the young generation is below the cap and stopped (factor 1) once it reaches it.
 */
function capYoungGeneration(): void {
  const cap = 2 * MAX_SEMI_SPACE_MB * 1024 * 1024;
  let growing = true;
  const observer = new PerformanceObserver(() => {
    const size = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    if (size < cap === growing) return;
    growing = size < cap;
    v8.setFlagsFromString(`--semi-space-growth-factor=${growing ? 2 : 1}`);
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** Which of the two settings apply: each only where the operator did not set that part of the heap themselves. */
export function serverHeapSettings(
  execArgv: readonly string[],
  nodeOptions: string,
): { capYoungGeneration: boolean; heapGrowingPercent: boolean } {
  const given = new Set(startFlags(execArgv, nodeOptions));
  return {
    capYoungGeneration: !YOUNG_GENERATION_FLAGS.some((flag) => given.has(flag)),
    heapGrowingPercent: !OLD_GENERATION_FLAGS.some((flag) => given.has(flag)),
  };
}

/**
 * Applies the server's heap settings to this process. Call it before the server's modules are loaded: loading them
 * is what first grows the young generation.
 */
export function useServerHeap(): void {
  const settings = serverHeapSettings(process.execArgv, process.env.NODE_OPTIONS ?? '');
  if (settings.capYoungGeneration) capYoungGeneration();
  if (settings.heapGrowingPercent) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
