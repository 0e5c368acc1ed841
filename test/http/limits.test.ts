import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withLimitsTable } from '../../lib/http/limits-table.js';
import { packageRoot } from '../../lib/paths.js';
import { startTestApp } from '../helpers/app.js';

describe('rate limits: one table', () => {
  it('is the table docs/configuration.md shows (run npm run docs:limits after changing lib/http/limits.ts)', () => {
    const page = readFileSync(join(packageRoot, 'docs', 'configuration.md'), 'utf8');
    expect(page).to.equal(withLimitsTable(page));
  });

  it('stops start-up on a bad configurable limit, naming its variable', async () => {
    let failure: unknown;
    try {
      const app = await startTestApp({ env: { CHECKER_RATE_LIMIT_PER_IP: 'lots' } });
      await app.close();
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.contain('CHECKER_RATE_LIMIT_PER_IP');
  });
});
