import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { RETENTION_RULES, sweepRetention } from '../../lib/store/retention.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { useApp } from '../helpers/app.js';

const byText = (a: string, b: string): number => a.localeCompare(b);

/** The "Retention of every table" section of docs/privacy.md: table name → its row. */
async function documentedRetention(): Promise<Map<string, string>> {
  const text = await readFile(join(packageRoot, 'docs/privacy.md'), 'utf8');
  const section = text.slice(text.indexOf('## Retention of every table'));
  const rows = section.split('\n').filter((line) => /^\| `[a-z_0-9]+` \|/.test(line));
  return new Map(rows.map((row) => [/^\| `([a-z_0-9]+)`/.exec(row)![1]!, row]));
}

const DAY = 86400;

describe('retention of every table (docs/privacy.md)', () => {
  const app = useApp({ verificationRetention: DAY, proofReuseTtl: 30 * DAY });

  it('documents every table of the schema, and no table that does not exist', async () => {
    const { rows } = (await app.provider.db.raw(
      "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
    )) as { rows: { table_name: string }[] };
    const schema = rows.map((row) => row.table_name).sort();
    expect(schema).to.include('verifications');
    expect([...(await documentedRetention()).keys()].sort()).to.deep.equal(schema);
  });

  it('states each swept table with the rule the sweeper applies', async () => {
    const documented = await documentedRetention();
    for (const rule of RETENTION_RULES)
      expect(documented.get(rule.table), rule.table).to.contain(rule.documented).and.contain('swept');
  });

  it('sweeps verifications past expiry + VERIFICATION_RETENTION, proofs past PROOF_REUSE_TTL and rate limits past their window', async () => {
    const { db, runtime } = app.provider;
    const webmaster = await createWebmasterFixture(runtime);
    const client = await createClientFixture(runtime, webmaster.id);
    const now = new Date();
    const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    const verification = (expiresAt: Date) => ({
      uid: randomUUID(),
      website_id: client.websiteId,
      environment: 'TEST',
      method: 'sandbox',
      assurance_level: 'STANDARD',
      age_threshold: 18,
      country: 'CH',
      verified: true,
      verified_at: at(-2 * DAY),
      expires_at: expiresAt,
    });
    const past = verification(at(-DAY - 60));
    const withinRetention = verification(at(-DAY + 60));
    const live = verification(at(3600));
    await db('verifications').insert([past, withinRetention, live]);
    const proof = (subject: string, provenAt: Date, reusableUntil: Date) => ({
      subject,
      method: 'sandbox',
      assurance_level: 'STANDARD',
      age_threshold: 18,
      environment: 'TEST',
      proven_at: provenAt,
      reusable_until: reusableUntil,
    });
    const subject = `retention-${randomUUID()}`;
    await db('age_proofs').insert([
      proof(`${subject}-ended`, at(-10 * DAY), at(-60)),
      // reusable for a year when proven, but PROOF_REUSE_TTL is 30 days now
      proof(`${subject}-ttl-lowered`, at(-31 * DAY), at(300 * DAY)),
      proof(`${subject}-live`, at(-DAY), at(29 * DAY)),
    ]);
    await db('rate_limits').insert([
      { key: `${subject}-window-over`, points: 3, expire: now.getTime() - 1000 },
      { key: `${subject}-window-open`, points: 3, expire: now.getTime() + 60_000 },
      { key: `${subject}-forever`, points: 3, expire: null },
    ]);

    const deleted = await sweepRetention(db, now, runtime.config);

    const uids = await db('verifications').whereIn('uid', [past.uid, withinRetention.uid, live.uid]).pluck('uid');
    expect([...uids].sort(byText)).to.deep.equal([withinRetention.uid, live.uid].sort(byText));
    expect(await db('age_proofs').where('subject', 'like', `${subject}%`).pluck('subject')).to.deep.equal([
      `${subject}-live`,
    ]);
    expect(
      (await db('rate_limits').where('key', 'like', `${subject}%`).pluck<string[]>('key')).sort(byText),
    ).to.deep.equal([`${subject}-forever`, `${subject}-window-open`]);
    // and says how many it swept, on either database
    expect(deleted).to.include({ verifications: 1, age_proofs: 2, rate_limits: 1 });
  });
});
