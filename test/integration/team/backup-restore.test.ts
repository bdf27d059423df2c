// A team server's ledger backed up while it runs (people, sealed credentials, an
// approval decided and one awaiting, a batch of payouts half sent through a slow gateway), then
// lost; the backup restored into a new database and a new server started on it with the key file:
// people sign in (one with a second factor, whose secret is sealed too) and their old sessions are
// over, the credentials open (a gateway call with the sealed merchant-token, the sealed signing
// key's fingerprint), the audit chain verifies, and the batch finishes with every payout at the
// gateway exactly once — including those the lost server sent after the backup, which the restored
// ledger does not know of. And what a restore refuses, writing nothing: a database that is not
// empty, a wrong key, a damaged dump, a missing manifest; no password shown anywhere.
// PostgreSQL only: the team server's ledger (a desk's SQLite file is copied, not dumped).
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index';
import { openLedger } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { backUpLedger, BackupError, manifestFileOf, restoreLedger, type BackupManifest } from '../../../src/main/server/backup';
import { EnvelopeKey } from '../../../src/main/services/team/envelope-key';
import { externalLocalGateway, type LocalGateway } from '../../../src/main/services/local-gateway';
import { totpCode } from '../../../src/main/services/team/totp';
import type { ApprovalDecision, ApprovalView, BatchView, PayoutReviewView, SubmitResult } from '../../../src/shared/contract';
import { payinForm, payoutForm } from '../../helpers/fixtures';
import { testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { desktopClient, signIn, startTeamTestServer, TEST_PASSWORD, type TeamTestServer } from '../../helpers/team';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { tempDir } from '../../helpers/temp-dir';
import { startLatencyProxy, type LatencyProxy } from '../../reliability/helpers/latency-proxy';
import { gatewayState } from '../../reliability/helpers/stores';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from '../batches/helpers';

/** The same database's address with a password in it (kept if it has one): it must never be shown. */
function withPassword(url: string): { url: string; password: string } {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = 'Sentinel-Pa55word-29-5';
  return { url: parsed.href, password: decodeURIComponent(parsed.password) };
}

async function publicTables(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0]?.n);
  } finally {
    await client.end();
  }
}

async function itemStates(url: string): Promise<Map<string, string>> {
  const ledger = await openLedger({ url });
  try {
    return new Map((await ledger.all<{ merchant_reference: string; state: string }>('SELECT merchant_reference, state FROM batch_items')).map((r) => [r.merchant_reference, r.state]));
  } finally {
    await ledger.close();
  }
}

describe.skipIf(testEngine !== 'postgres')('backup and restore of a team server', () => {
  let temp: ReturnType<typeof tempDir>;
  let emulator: EmulatorHandle;
  let proxy: LatencyProxy;
  let gatewayDelayMs = 500;
  let local: LocalGateway;
  let keyFile: string;
  let lost: TeamTestServer | undefined;
  let restored: TeamTestServer | undefined;
  const databases: TestDatabase[] = [];
  const newDatabase = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };

  beforeAll(async () => {
    temp = tempDir('paydesk-team-backup-');
    emulator = await startEmulator({ dataFile: path.join(temp.dir, 'gateway.sqlite'), quiet: true, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 } });
    proxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => gatewayDelayMs);
    // The local-emulator profile reaches the gateway through the slow proxy; the gateway outlives both servers.
    local = { ...(await externalLocalGateway(emulator.adminUrl)), baseUrl: proxy.baseUrl };
    keyFile = path.join(temp.dir, 'envelope.key');
    writeFileSync(keyFile, `${EnvelopeKey.generate().toBase64()}\n`, { mode: 0o600 });
  }, 60_000);

  afterAll(async () => {
    await restored?.close();
    await lost?.close();
    await proxy?.close();
    await emulator?.close();
    for (const database of databases) await database.drop();
    temp?.cleanup();
  });

  it('restores a ledger backed up mid-batch into a new database: people sign in, credentials open, the chain verifies, the batch ends with each payout sent once', { timeout: 120_000 }, async () => {
    const key = EnvelopeKey.fromFile(keyFile);
    const server = await startTeamTestServer(path.join(temp.dir, 'lost'), { key, database: (await newDatabase()).url, localGateway: local, core: { batches: { concurrency: 2 } } });
    lost = server;
    await server.addPerson('alice', 'admin');
    await server.addPerson('aaron', 'approver');
    await server.addPerson('fiona', 'finance');
    const admin = await desktopClient(server.origin, 'alice');
    const finance = await desktopClient(server.origin, 'fiona');
    const approver = await desktopClient(server.origin, 'aaron');
    // Aaron's second factor: its secret is sealed under the envelope key too.
    const { secret } = await approver.value<{ secret: string }>('team:start-totp');
    await approver.value('team:confirm-totp', { code: totpCode(secret, new Date()) });

    // Sealed credentials: a sandbox profile on the same gateway, its merchant-token and a signing key.
    const facts = { baseUrl: emulator.baseUrl, merchantId: emulator.merchant.merchant_id, merchantSiteId: emulator.merchant.merchant_site_id };
    const sandboxId = (await admin.value<{ id: string }>('profiles:create', { name: 'Shop sandbox', environment: 'sandbox', ...facts })).id;
    await admin.value('credentials:set-merchant-token', { profileId: sandboxId, token: emulator.merchant.merchant_token });
    const signingKey = await admin.value<{ fingerprint: string }>('credentials:generate-key', { profileId: sandboxId, kid: 'backup-kid' });
    const localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;

    // Approvals: one decided (its payout sent), one awaiting a decision when the backup is taken.
    await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '1000000' });
    const submit = async (amount: string, reference: string) => {
      const form = payoutForm('open_banking', { amount, reference, profileId: localId });
      const review = await finance.value<PayoutReviewView>('payouts:review', form);
      return finance.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
    };
    const stamp = Date.now();
    const decided = await submit('250.00', `backup-approved-${stamp}`);
    expect((await approver.value<ApprovalDecision>('approvals:approve', { id: decided.id })).payout?.outcome).toBe('succeeded');
    const awaiting = await submit('300.00', `backup-awaiting-${stamp}`);

    // A batch of 20 payouts, two at a time through a gateway that answers after half a second.
    const rows = batchRows(20, { prefix: `backup-${stamp}` });
    const references = rows.map((r) => String(r.form.merchantReference));
    const batch = await uploadBatch(finance.call, rows, { fileName: 'backup.csv' });
    await waitFor(() => getBatch(finance.call, batch.id), (b) => b.counts.sent >= 2 && b.counts.sending > 0, 'some payouts sent and some in flight', 30_000);

    // The backup, taken while the server goes on sending.
    const out = path.join(temp.dir, 'paydesk.dump');
    const database = withPassword(server.database as string);
    const backup = await backUpLedger({ database: database.url, out, key, version: 'test' });
    const manifestText = readFileSync(manifestFileOf(out), 'utf8');
    const manifest = JSON.parse(manifestText) as BackupManifest;
    expect(manifest).toMatchObject({ format: 'paydesk-backup/1', paydeskVersion: 'test', envelopeKeys: [key.id], dump: { file: 'paydesk.dump', bytes: backup.manifest.dump.bytes } });
    expect(manifest.rows).toMatchObject({ batch_items: 20, team_users: 3, approvals: 2 });
    expect(manifest.sealedValues).toBeGreaterThanOrEqual(4); // merchant-token, signing key, approvals' digest key, Aaron's TOTP
    expect(manifest.schema.at(-1)?.version).toBeGreaterThanOrEqual(5);
    expect(manifest.auditHead?.seq).toBeGreaterThan(0);
    // Ids of keys, never a key; no password anywhere.
    expect(manifestText).not.toContain(key.toBase64());
    expect(manifestText).not.toContain(database.password);

    // The server goes on a little (payouts the backup does not know of reach the gateway), then is lost.
    const atBackup = await getBatch(finance.call, batch.id);
    await waitFor(() => getBatch(finance.call, batch.id), (b) => b.counts.sent >= atBackup.counts.sent + 2, 'payouts sent after the backup', 30_000);
    await server.close();
    lost = undefined;
    gatewayDelayMs = 20;
    const inLost = await itemStates(server.database as string);

    // Restored into a new database with the key file; then a new server on it.
    const target = await newDatabase();
    const result = await restoreLedger({ database: withPassword(target.url).url, from: out, key: EnvelopeKey.fromFile(keyFile) });
    expect(result.after).toMatchObject({ approvalsVoided: 1, instancesForgotten: 1, batchesToCheck: 1 });
    expect(result.after.sessionsEnded).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(result)).not.toContain('Sentinel-Pa55word');
    const inBackup = await itemStates(target.url);
    // The case a restore must handle: payouts pending in the backup that the lost server sent after it, and others it never sent.
    expect(references.filter((ref) => inBackup.get(ref) === 'pending' && inLost.get(ref) === 'sent').length, 'payouts sent after the backup').toBeGreaterThan(0);
    expect(references.filter((ref) => inLost.get(ref) === 'pending').length, 'payouts never sent').toBeGreaterThan(0);

    const next = await startTeamTestServer(path.join(temp.dir, 'restored'), { key: EnvelopeKey.fromFile(keyFile), database: target.url, localGateway: local });
    restored = next;

    // People sign in over HTTP with their passwords (Aaron with his code); sessions from before are over.
    const browser = await signIn(next.origin, { username: 'alice', password: TEST_PASSWORD });
    expect(browser.status).toBe(200);
    expect(browser.cookie).toMatch(/=/);
    const adminAgain = await desktopClient(next.origin, 'alice');
    const financeAgain = await desktopClient(next.origin, 'fiona');
    expect(await signIn(next.origin, { username: 'aaron', password: TEST_PASSWORD, client: 'desktop' })).toMatchObject({ status: 401, body: { ok: false, error: { fields: { totp: expect.any(String) } } } });
    const approverAgain = await desktopClient(next.origin, 'aaron', TEST_PASSWORD, totpCode(secret, new Date(Date.now() + 30_000)));
    const oldSession = await fetch(`${next.origin}/rpc/batches:get`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${finance.token}` }, body: JSON.stringify({ input: { id: batch.id } }) });
    expect(oldSession.status).toBe(401);

    // The credentials open: a sandbox call goes out with the sealed merchant-token; the signing key is the same.
    expect(await adminAgain.value<SubmitResult>('payins:create', payinForm('open_banking', { profileId: sandboxId }))).toMatchObject({ outcome: 'succeeded' });
    expect((await adminAgain.value<{ fingerprint: string }>('credentials:export-public-key', { profileId: sandboxId })).fingerprint).toBe(signingKey.fingerprint);

    // Approvals: the decided one as it was, the awaiting one void (it may have been decided after the backup).
    expect(await approverAgain.value<ApprovalView>('approvals:get', { id: decided.id })).toMatchObject({ state: 'approved', decidedBy: { name: 'aaron' }, idempotencyKey: expect.any(String) });
    expect(await approverAgain.value<ApprovalView>('approvals:get', { id: awaiting.id })).toMatchObject({ state: 'voided', reason: expect.stringMatching(/restored from a backup taken at/) });

    // The batch goes on under the new instance and ends; each payout reached the gateway once, under one key.
    const done = await waitFor(() => getBatch(financeAgain.call, batch.id), (b: BatchView) => b.state === 'done' && b.counts.unknown === 0, 'the restored batch to end', 60_000);
    expect(done.counts).toMatchObject({ sent: 20, sending: 0, unknown: 0, pending: 0 });
    const held = gatewayPayoutsByReference(path.join(temp.dir, 'gateway.sqlite'));
    expect(exactlyOnceProblems(held, [...references, decided.subject])).toEqual([]);
    const keysPerReference = new Map<string, number>();
    for (const { reference } of gatewayState(path.join(temp.dir, 'gateway.sqlite')).keys) if (reference) keysPerReference.set(reference, (keysPerReference.get(reference) ?? 0) + 1);
    expect(references.filter((ref) => keysPerReference.get(ref) !== 1)).toEqual([]);

    // The audit chain verifies, and says the ledger was restored.
    const repos = createRepositories(next.core.ledger);
    expect(await repos.audit.verify(manifest.auditHead ?? undefined)).toMatchObject({ ok: true });
    expect((await repos.audit.list({ limit: 1000 })).some((entry) => entry.action === 'ledger.restore' && entry.actor === 'system')).toBe(true);
  });

  it('refuses to restore into a database that is not empty, with a wrong key, a damaged dump or no manifest, and to back up over a file, a non-ledger or with a key that does not open it: nothing written, no password shown', { timeout: 60_000 }, async () => {
    const source = await newDatabase();
    const server = await startTeamTestServer(path.join(temp.dir, 'source'), { key: EnvelopeKey.fromFile(keyFile), database: source.url, localGateway: local });
    try {
      await server.addPerson('alice', 'admin');
      const admin = await desktopClient(server.origin, 'alice');
      const sandbox = await admin.value<{ id: string }>('profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: emulator.baseUrl, merchantId: 'm-1', merchantSiteId: 's-1' });
      await admin.value('credentials:set-merchant-token', { profileId: sandbox.id, token: emulator.merchant.merchant_token });
    } finally {
      await server.close();
    }
    const out = path.join(temp.dir, 'refusals.dump');
    await backUpLedger({ database: source.url, out, key: EnvelopeKey.fromFile(keyFile), version: 'test' });
    // A backup never writes over a file, nor backs up a database that holds no ledger, nor checks out with a key that does not open it.
    const backupRefusal = (database: string, to: string, key?: EnvelopeKey) => backUpLedger({ database, out: to, key, version: 'test' }).then(() => 'backed up', (e: Error) => e.message);
    expect(await backupRefusal(source.url, out)).toMatch(/exists already: a backup goes into a new file\. Nothing was written/);
    expect(await backupRefusal((await newDatabase()).url, path.join(temp.dir, 'none.dump'))).toMatch(/holds no Paydesk ledger .*Nothing was written/);
    expect(await backupRefusal(source.url, path.join(temp.dir, 'other-key.dump'), EnvelopeKey.generate())).toMatch(/the envelope key given \(id \w+\) does not open .*Nothing was written/);
    expect(readdirSync(temp.dir).filter((name) => /^(none|other-key)\.dump/.test(name))).toEqual([]);
    const key = EnvelopeKey.fromFile(keyFile);
    const refusal = async (database: string, from: string, withKey = key): Promise<string> => {
      const error = (await restoreLedger({ database, from, key: withKey }).then(() => null, (e: unknown) => e)) as Error | null;
      expect(error).toBeInstanceOf(BackupError);
      expect(error!.message).not.toContain('Sentinel-Pa55word');
      return error!.message;
    };

    // Into a database that holds a ledger: refused, and that ledger is left as it was.
    const sourceAudit = await (async () => {
      const ledger = await openLedger({ url: source.url });
      try {
        return await createRepositories(ledger).audit.head();
      } finally {
        await ledger.close();
      }
    })();
    expect(await refusal(withPassword(source.url).url, out)).toMatch(/is not empty \(it holds .*\): restore into a new, empty database.*Nothing was restored/);
    const ledger = await openLedger({ url: source.url });
    try {
      expect(await createRepositories(ledger).audit.head()).toEqual(sourceAudit);
    } finally {
      await ledger.close();
    }

    const empty = await newDatabase();
    const target = withPassword(empty.url).url;
    // A key other than the one the credentials were sealed under.
    expect(await refusal(target, out, EnvelopeKey.generate())).toMatch(new RegExp(`is not the one this backup's credentials were sealed under \\(${key.id}\\).*Nothing was restored`));
    // A dump cut short: its manifest says so before anything is written.
    const cut = path.join(temp.dir, 'cut.dump');
    copyFileSync(out, cut);
    copyFileSync(manifestFileOf(out), manifestFileOf(cut));
    truncateSync(cut, Math.floor(readFileSync(out).length / 2));
    expect(await refusal(target, cut)).toMatch(/truncated or damaged\. Nothing was restored/);
    // ...and one whose manifest was made to match it: pg_restore fails, and its one transaction leaves nothing.
    const lying = JSON.parse(readFileSync(manifestFileOf(out), 'utf8')) as BackupManifest;
    const bytes = readFileSync(cut);
    writeFileSync(manifestFileOf(cut), JSON.stringify({ ...lying, dump: { ...lying.dump, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } }));
    expect(await refusal(target, cut)).toMatch(/pg_restore failed .*Nothing was restored \(pg_restore ran as one transaction\)/s);
    // No manifest beside it.
    const bare = path.join(temp.dir, 'bare.dump');
    copyFileSync(out, bare);
    expect(await refusal(target, bare)).toMatch(/No manifest beside the dump/);
    expect(await publicTables(empty.url)).toBe(0);

    // The same backup, with the right key, into that empty database: restored.
    expect((await restoreLedger({ database: target, from: out, key })).manifest.rows.team_users).toBe(1);
    expect(await publicTables(empty.url)).toBeGreaterThan(10);
  });
});
