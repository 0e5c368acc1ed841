import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../../lib/paths.js';

describe('the licence', () => {
  it('is the one package.json declares, in a LICENSE file at the top of the tree', async () => {
    const { license } = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { license: string };
    const text = await readFile(join(packageRoot, 'LICENSE'), 'utf8');
    expect(license).to.equal('MIT');
    expect(text.split('\n')[0]).to.equal(`${license} License`);
    // the MIT licence's grant and warranty disclaimer, as opensource.org gives them
    expect(text)
      .to.contain('Permission is hereby granted, free of charge')
      .and.contain('THE SOFTWARE IS PROVIDED "AS IS"');
  });
});
