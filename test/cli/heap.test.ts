import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { SHIPPED_NODE_FLAG, serverHeapSettings } from '../../lib/cli/heap.js';
import { readDockerfile } from '../examples/dockerfile.js';
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
    cwd: packageRoot,
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).to.equal(0);
  return Number(run.stdout.trim());
}

describe('the server heap settings (lib/cli/heap.ts)', function () {
  this.timeout(120_000);

  it('keep the young generation near two 8 MB semi-spaces, where V8 alone grows it to 32 MB (Node 20) or 128 MB (Node 24)', () => {
    const alone = youngGenerationMb([], false);
    const capped = youngGenerationMb([], true);
    // the cap V8 would apply had the flag been on the command line: 16 MB on Node 20, 18-19 MB as Node 24 counts it
    const flag = youngGenerationMb(['--max-semi-space-size=8'], false);
    // more than the two 1 MB semi-spaces it starts with: growth is stopped at the cap, not before
    expect(capped).to.be.greaterThan(4);
    // the cap is applied after a collection is reported, so a burst of collections may pass it by one growth step
    expect(capped).to.be.at.most(2 * flag);
    expect(capped).to.be.at.most(alone / 2);
  });

  it("leave the operator's own V8 heap flags alone, from the command line or NODE_OPTIONS", () => {
    expect(serverHeapSettings([], '')).to.deep.equal({ capYoungGeneration: true, heapGrowingPercent: true });
    expect(serverHeapSettings(['--max-semi-space-size=32'], '')).to.deep.equal({
      capYoungGeneration: false,
      heapGrowingPercent: true,
    });
    expect(serverHeapSettings([], '--max_semi_space_size=2 --heap-growing-percent=20')).to.deep.equal({
      capYoungGeneration: false,
      heapGrowingPercent: false,
    });
    expect(serverHeapSettings(['--import', 'tsx', '--heap_growing_percent=80'], '')).to.deep.equal({
      capYoungGeneration: true,
      heapGrowingPercent: false,
    });
    expect(youngGenerationMb(['--max-semi-space-size=32'], true)).to.be.greaterThan(16);
  });

  it('are on the command lines we ship (npm start, the Dockerfile, the systemd unit), where V8 reads them from the start', async () => {
    const scripts = (
      JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const cmd = (await readDockerfile(join(packageRoot, 'examples', 'deploy', 'Dockerfile'))).find(
      ({ keyword }) => keyword === 'CMD',
    );
    const unit = await readFile(join(packageRoot, 'examples', 'deploy', 'age-provider@.service'), 'utf8');
    const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '';
    expect(scripts.start).to.match(new RegExp(`node ${SHIPPED_NODE_FLAG} dist/examples/demo/main\\.js$`));
    expect(JSON.parse(cmd!.args)).to.deep.equal(['node', SHIPPED_NODE_FLAG, 'bin/age-provider.js', 'serve']);
    expect(execStart.split(' ')).to.deep.equal([
      '/usr/bin/node',
      SHIPPED_NODE_FLAG,
      '/opt/age-provider/bin/age-provider.js',
      'serve',
    ]);
    // and the server started that way leaves the young generation to the flag alone
    expect(serverHeapSettings([SHIPPED_NODE_FLAG], '').capYoungGeneration).to.equal(false);
  });
});
