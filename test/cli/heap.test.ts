import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { serverHeapSettings } from '../../lib/cli/heap.js';
import { packageRoot } from '../../lib/paths.js';

/**
 * Runs `useServerHeap()` in a process of its own (it changes V8 flags for the whole process), allocates a few hundred
 * MB of short-lived objects with some of them surviving a while, as a server's requests do, and reports the young
 * generation's size. The process must also exit by itself: the GC observer may not keep it alive.
 */
function youngGenerationMb(nodeArgs: string[], apply: boolean): number {
  const script = `
    import v8 from 'node:v8';
    import { useServerHeap } from ${JSON.stringify(join(packageRoot, 'lib/cli/heap.ts'))};
    if (${apply}) useServerHeap();
    let kept = [];
    for (let round = 0; round < 60; round += 1) {
      for (let i = 0; i < 20000; i += 1) kept.push({ i, text: 'x'.repeat(i % 50) });
      if (kept.length > 100000) kept = [];
      await new Promise((resolve) => setImmediate(resolve));
    }
    const space = v8.getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
    console.log(space.space_size / 1048576);`;
  const run = spawnSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: packageRoot, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 60_000,
  });
  expect(run.status, run.stderr).to.equal(0);
  return Number(run.stdout.trim());
}

describe('the server heap settings (lib/cli/heap.ts)', function () {
  this.timeout(120_000);

  it('let the young generation grow up to two 8 MB semi-spaces and no further, where V8 alone grows it to 2 x 16 MB', () => {
    expect(youngGenerationMb([], false)).to.be.greaterThan(16);
    // more than the two 1 MB semi-spaces it starts with: growth is stopped at the cap, not before
    expect(youngGenerationMb([], true)).to.be.within(4, 16);
  });

  it("leave the operator's own V8 heap flags alone, from the command line or NODE_OPTIONS", () => {
    expect(serverHeapSettings([], '')).to.deep.equal({ capYoungGeneration: true, heapGrowingPercent: true });
    expect(serverHeapSettings(['--max-semi-space-size=32'], '')).to.deep.equal({ capYoungGeneration: false, heapGrowingPercent: true });
    expect(serverHeapSettings([], '--max_semi_space_size=2 --heap-growing-percent=20')).to.deep.equal({ capYoungGeneration: false, heapGrowingPercent: false });
    expect(serverHeapSettings(['--import', 'tsx', '--heap_growing_percent=80'], '')).to.deep.equal({ capYoungGeneration: true, heapGrowingPercent: false });
    expect(youngGenerationMb(['--max-semi-space-size=32'], true)).to.be.greaterThan(16);
  });
});
