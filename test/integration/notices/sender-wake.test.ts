// An e-mail leaves as soon as its notice is found written, not at the sender's next round: a team
// server whose sender looks at the outbox only once a minute still mails an approver within
// seconds of the request, over one pooled SMTP connection (STARTTLS and login once). Real SMTP
// server on loopback, real team server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, PayoutReviewView } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { waitFor } from '../../helpers/poll';
import { startSmtpInbox, type SmtpInbox } from '../../helpers/smtp-inbox';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../../helpers/test-tls';

let cert: TestCertificate;
let smtp: SmtpInbox;
let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
let maker: TeamClient;
let approver: TeamClient;
let localId: string;

beforeAll(async () => {
  cert = makeTestCertificate();
  smtp = await startSmtpInbox(cert);
  const url = new URL(smtp.url);
  temp = tempDir('paydesk-sender-wake-');
  server = await startTeamTestServer(temp.dir, {
    core: {
      notices: {
        announceMs: 100,
        smtp: { host: url.hostname, port: Number(url.port), requireTLS: true, auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }, from: 'Paydesk <paydesk@example.com>', tls: { ca: cert.cert } },
        // Its own rounds once a minute: only being woken can send within the test's seconds.
        sender: { everyMs: 60_000 },
      },
    },
  });
  for (const [name, role] of [['ada', 'admin'], ['fin', 'finance'], ['app', 'approver']] as const) await server.addPerson(name, role);
  const admin = await desktopClient(server.origin, 'ada');
  maker = await desktopClient(server.origin, 'fin');
  approver = await desktopClient(server.origin, 'app');
  localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
  await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '500' });
  await approver.value('notices:set-choices', { email: 'app@example.com', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await smtp?.close();
  temp?.cleanup();
  cert?.cleanup();
});

describe('the notice sender', () => {
  it('is woken by new notices: each request mails its approver within seconds, though its own round is a minute away', async () => {
    // The sender's first round (as it took the lead) has passed: from here only a wake sends.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 1; i <= 3; i++) {
      const form = payoutForm('open_banking', { amount: '150.00', reference: `wake-${Date.now()}-${i}`, profileId: localId });
      const review = await maker.value<PayoutReviewView>('payouts:review', form);
      const approval = await maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
      const started = Date.now();
      await waitFor(() => smtp.to('app@example.com').length, (n) => n === i, `request ${i} mailed to its approver`, 5_000);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(smtp.to('app@example.com')[i - 1]!.raw).toContain(`#/approvals/${approval.id}`);
    }
  });
});
