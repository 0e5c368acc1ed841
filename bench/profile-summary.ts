/**
 * Summarises a V8 .cpuprofile (node --cpu-prof) by where the busy time went: self time per package
 * (node_modules/<package>, node: built-ins, this project's own files) and the functions with the most self time.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Who owns a script: its package, Node.js itself, or this project. */
function ownerOf(url: string): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:') || url === '') return url === '' ? '(native / GC / idle)' : 'node: built-ins';
  return 'age-provider';
}

export function summariseProfile(file: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000),
  );
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, ms] of selfMs) {
    const { callFrame } = byId.get(id)!;
    if (callFrame.functionName === '(idle)' || callFrame.functionName === '(program)') continue;
    busy += ms;
    const owner = ownerOf(callFrame.url);
    packages.set(owner, (packages.get(owner) ?? 0) + ms);
    const name = `${callFrame.functionName || '(anonymous)'} ${owner === 'age-provider' ? callFrame.url.replace(/^.*\/(lib|adapters|dist)\//, '$1/') : owner}:${callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const share = (ms: number) => `${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `busy ${busy.toFixed(0)} ms (idle excluded); self time by package:`,
    ...sorted(packages).map(([name, ms]) => `  ${share(ms)}  ${name}`),
    'functions with the most self time:',
    ...sorted(functions).map(([name, ms]) => `  ${share(ms)}  ${name}`),
  ].join('\n');
}

if (process.argv[2]) console.log(summariseProfile(process.argv[2]));
