// Notices as an upgrade from the version before, on each engine: SQLite's 0023 and PostgreSQL's
// 0011 (the same expectations for both: the two migrations agree). Every row the ledger held stays;
// the notices tables are there, empty, with the same columns on both engines, and takes a notice.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 23, postgres: 11 });

const TABLES: Record<string, string[]> = {
  notices: ['body', 'created_at', 'id', 'kind', 'link', 'read_at', 'recipient', 'subject', 'title'],
  notice_deliveries: ['address', 'channel', 'digest_of', 'id', 'kind', 'last_error', 'next_at', 'notice_id', 'recipient', 'sent_at', 'state', 'tries'],
  notice_choices: ['channel', 'kind', 'person_id'],
  notice_contacts: ['chat_url', 'email', 'person_id', 'updated_at'],
  notice_channels: ['channel', 'last_error', 'last_error_at', 'last_sent_at'],
};

describe(`notices as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row and adds the notices tables (inbox, outbox, choices, contacts, channels), empty, with the same columns on both engines', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    const repos = createRepositories(old.db, clock.now);
    await repos.profiles.create({ name: 'Shop', environment: 'sandbox', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    await repos.audit.append({ actor: 'user', action: 'settings.update', details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    for (const [table, expected] of Object.entries(TABLES)) {
      const columns =
        db.engine === 'sqlite'
          ? await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
          : await db.all<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table]);
      expect(columns.map((c) => c.name).sort(), table).toEqual(expected);
      expect(Number((await db.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))?.n), table).toBe(0);
    }

    const upgraded = createRepositories(db, clock.now);
    expect(await upgraded.notices.add({ kind: 'payout.declined', subject: 'payout:r', title: 't', body: 'b', link: '#/payouts/1' }, { people: [''] })).toBe(1);
    expect(await upgraded.notices.unread('')).toBe(1);
  });
});
