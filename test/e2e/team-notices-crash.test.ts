// "delivered once, whatever happens", end to end: two built team-server instances on one
// PostgreSQL ledger, e-mail to a real SMTP server on loopback (STARTTLS, authentication) that the
// test reads. A maker submits a payout above the approval policy; the instance leading the notice
// sender is killed with SIGKILL while its first e-mail is in flight (the SMTP server has read it
// and not yet accepted it: a message that was never accepted, so not a mail anyone got). The other
// instance takes the sending over and delivers each approver's e-mail; both approvers have their
// notice in the app; one approves; the maker is told by e-mail and in the app; the killed instance
// started again sends nothing more. Each person gets each message once: counted per person, each
// with its own Message-ID (so no count here rests on a mail client's Message-ID dedupe).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbox } from '../../src/shared/contract';
import { payoutForm as samplePayout } from '../helpers/fixtures';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../helpers/test-tls';
import { freePort } from './harness';
import { prepareTeamServer, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess, type TeamServerSetup } from './team-harness';

let database: TestDatabase;
let temp: ReturnType<typeof tempDir>;
let cert: TestCertificate;
let smtp: SmtpInbox;
const setups: TeamServerSetup[] = [];
const running: (TeamServerProcess | null)[] = [null, null];

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-notices-crash-');
  cert = makeTestCertificate();
  smtp = await startSmtpInbox(cert);
  database = await createTestDatabase();
  for (const dir of ['a', 'b']) mkdirSync(path.join(temp.dir, dir), { recursive: true });
  const a = await prepareTeamServer(database.url, path.join(temp.dir, 'a'), path.join(temp.dir, 'envelope.key'));
  setups.push(a, { ...a, dataDir: path.join(temp.dir, 'b'), port: await freePort(), notifyPort: await freePort() });
}, 120_000);

afterAll(async () => {
  for (const server of running) await server?.stop();
  await database?.drop();
  await smtp?.close();
  cert?.cleanup();
  temp?.cleanup();
});

const start = async (i: number) => {
  const server = await startTeamServer(setups[i] as TeamServerSetup, ['--smtp-url', smtp.url, '--smtp-require-tls', '--smtp-from', 'Paydesk <paydesk@example.com>'], { NODE_EXTRA_CA_CERTS: cert.certFile });
  running[i] = server;
  return server;
};
const leadsNotices = (server: TeamServerProcess) => /leads notices/.test(server.output());

describe('notices on two team-server instances, the sending one killed', () => {
  it('delivers each e-mail and in-app notice once when the instance leading the sender is killed -9 with a message in flight', async () => {
    // A starts first and leads the sending; B then starts beside it.
    const a = await start(0);
    await expect.poll(() => leadsNotices(a), { timeout: 15_000 }).toBe(true);
    const b = await start(1);
    expect(leadsNotices(b)).toBe(false);

    const adminToken = await teamToken(b.origin, 'alice');
    await teamCall(b.origin, adminToken, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
    for (const [username, displayName, role] of [['fay', 'Fay Finance', 'finance'], ['abe', 'Abe Approver', 'approver'], ['bea', 'Bea Approver', 'approver']] as const) {
      await teamCall(b.origin, adminToken, 'team:create-user', { username, displayName, role, password: TEAM_PASSWORD });
    }
    const token = { fay: await teamToken(b.origin, 'fay'), abe: await teamToken(b.origin, 'abe'), bea: await teamToken(b.origin, 'bea') };
    for (const who of ['abe', 'bea'] as const) await teamCall(b.origin, token[who], 'notices:set-choices', { email: `${who}@example.com`, chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
    await teamCall(b.origin, token.fay, 'notices:set-choices', { email: 'fay@example.com', chatUrl: null, choices: [{ kind: 'approval.approved', channel: 'email' }] });
    const noticesOf = async (who: keyof typeof token) => (await teamCall<Inbox>(b.origin, token[who], 'notices:list', { limit: 50 })).items.map((notice) => notice.kind);

    // The SMTP server reads the first message A sends and does not answer it; then A is killed.
    const held = smtp.hold();
    const profileId = (await teamCall<{ id: string; environment: string }[]>(b.origin, token.fay, 'profiles:list')).find((p) => p.environment === 'local')!.id;
    const form = samplePayout('open_banking', { amount: '180.00', reference: 'notice-crash-1', profileId });
    const review = await teamCall<{ reviewId: string }>(b.origin, token.fay, 'payouts:review', form);
    const approval = await teamCall<{ id: number }>(b.origin, token.fay, 'approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
    await held;
    expect(await a.kill()).toBe('SIGKILL');
    running[0] = null;
    const killedAt = Date.now();
    smtp.release();
    expect(smtp.mails).toEqual([]);

    // B leads the sending within the cluster's retry time and sends both approvers' e-mails.
    for (const address of ['abe@example.com', 'bea@example.com']) await expect.poll(() => smtp.to(address).length, { timeout: 20_000 }).toBe(1);
    expect(leadsNotices(b)).toBe(true);
    console.log(`team-notices-crash: both e-mails delivered by the survivor ${Date.now() - killedAt} ms after the kill`);
    expect(smtp.to('abe@example.com')[0]?.raw).toMatch(/notice-crash-1/);
    expect(await noticesOf('abe')).toEqual(['approval.requested']);
    expect(await noticesOf('bea')).toEqual(['approval.requested']);

    await teamCall(b.origin, token.bea, 'approvals:approve', { id: approval.id });
    await expect.poll(() => smtp.to('fay@example.com').length, { timeout: 10_000 }).toBe(1);
    expect(smtp.to('fay@example.com')[0]?.raw).toMatch(/notice-crash-1/);

    // The killed instance started again (its operator's restart) sends nothing more.
    const again = await start(0);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(leadsNotices(again)).toBe(false);
    expect(smtp.mails.map((mail) => mail.to).sort()).toEqual(['abe@example.com', 'bea@example.com', 'fay@example.com']);
    expect(new Set(smtp.mails.map((mail) => mail.messageId)).size).toBe(3);
    for (const [who, kinds] of [['abe', ['approval.requested']], ['bea', ['approval.requested']], ['fay', ['approval.approved']]] as const) expect(await noticesOf(who), who).toEqual(kinds);
  });
});
