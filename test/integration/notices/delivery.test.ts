// E-mail and chat on a team server: each person chooses what reaches them where; a notice
// is put in the outbox with its cause and sent by the sender — e-mail to a real SMTP server on
// loopback (smtp-server, STARTTLS required, authentication), chat to a local HTTP receiver of the
// incoming-webhook shape ({ "text": … }). Links use the server's public URL; a message carries no
// card number beyond 6/4. A refusing webhook is retried with backoff and its last error shown to
// admins. (The digest and a restart's sending: sender.test.ts.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, NoticeChannelStatus, NoticeChoices, PayoutReviewView } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { waitFor } from '../../helpers/poll';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../../helpers/test-tls';

interface Mail {
  to: string;
  raw: string;
  user: string | undefined;
  secure: boolean;
}

let cert: TestCertificate;
let smtp: SMTPServer;
let smtpPort: number;
const mails: Mail[] = [];
let hook: Server;
let hookUrl: string;
const posts: { path: string; body: { text: string } }[] = [];
/** The chat receiver refuses this many posts first (a failing channel). */
let refuseNext = 0;

let temp: ReturnType<typeof tempDir>;
let server: TeamTestServer;
let admin: TeamClient;
let maker: TeamClient;
let approver: TeamClient;
let other: TeamClient;
let localId: string;
let seq = 0;

beforeAll(async () => {
  cert = makeTestCertificate();
  smtp = new SMTPServer({
    key: cert.key,
    cert: cert.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth: (auth, _session, callback) => (auth.username === 'paydesk' && auth.password === 'mail-secret' ? callback(null, { user: auth.username }) : callback(new Error('bad credentials'))),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, raw: Buffer.concat(chunks).toString('utf8'), user: session.user as string | undefined, secure: session.secure });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;

  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (refuseNext > 0) {
        refuseNext--;
        res.writeHead(503).end('try later');
        return;
      }
      posts.push({ path: req.url ?? '', body: JSON.parse(body) as { text: string } });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/T000/B000`;

  temp = tempDir('paydesk-notice-delivery-');
  server = await startTeamTestServer(temp.dir, {
    core: {
      notices: {
        announceMs: 50,
        smtp: { host: '127.0.0.1', port: smtpPort, requireTLS: true, auth: { user: 'paydesk', pass: 'mail-secret' }, from: 'Paydesk <paydesk@example.com>', tls: { ca: cert.cert } },
        sender: { everyMs: 50, baseDelayMs: 100, maxDelayMs: 400, maxTries: 5 },
      },
    },
  });
  for (const [name, role] of [['ada', 'admin'], ['fin', 'finance'], ['app', 'approver'], ['ines', 'approver']] as const) await server.addPerson(name, role);
  admin = await desktopClient(server.origin, 'ada');
  maker = await desktopClient(server.origin, 'fin');
  approver = await desktopClient(server.origin, 'app');
  other = await desktopClient(server.origin, 'ines');
  localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
  await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '500' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  temp?.cleanup();
  cert?.cleanup();
});

async function submit(amount: string): Promise<ApprovalView> {
  const form = payoutForm('open_banking', { amount, reference: `dlv-${Date.now()}-${++seq}`, profileId: localId });
  const review = await maker.value<PayoutReviewView>('payouts:review', form);
  return maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
}

const mailsTo = (address: string) => mails.filter((m) => m.to === address);

describe('e-mail and chat notices on a team server', () => {
  it('sends each person what they chose, where they chose: e-mail over STARTTLS with authentication, chat as { text }, links to the public URL', async () => {
    await approver.value<NoticeChoices>('notices:set-choices', { email: 'app@example.com', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
    await other.value<NoticeChoices>('notices:set-choices', { email: null, chatUrl: hookUrl, choices: [{ kind: 'approval.requested', channel: 'chat' }] });
    await maker.value<NoticeChoices>('notices:set-choices', { email: 'fin@example.com', chatUrl: null, choices: [{ kind: 'approval.approved', channel: 'email' }] });
    expect(await other.value('notices:get-choices')).toEqual({ email: null, chatUrl: hookUrl, choices: [{ kind: 'approval.requested', channel: 'chat' }] });

    const approval = await submit('150.00');
    await waitFor(() => mailsTo('app@example.com').length + posts.length, (n) => n === 2, 'the approvers told by e-mail and chat', 5_000);
    const [mail] = mailsTo('app@example.com');
    expect(mail).toMatchObject({ user: 'paydesk', secure: true });
    expect(mail!.raw).toMatch(/Subject: Approval needed: Payout dlv-[^\n]* of 150\.00 EUR/);
    expect(mail!.raw).toContain(`http://127.0.0.1/#/approvals/${approval.id}`);
    expect(posts[0]).toMatchObject({ path: '/hooks/T000/B000', body: { text: expect.stringContaining(`http://127.0.0.1/#/approvals/${approval.id}`) } });
    // The maker chose nothing for requests; the approvers nothing for approvals.
    expect(mailsTo('fin@example.com')).toEqual([]);

    await approver.value('approvals:approve', { id: approval.id });
    await waitFor(() => mailsTo('fin@example.com').length, (n) => n === 1, 'the maker told by e-mail', 5_000);
    expect(mailsTo('fin@example.com')[0]!.raw).toMatch(/Subject: Approved: Payout/);
    // Nobody is told twice.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(mails).toHaveLength(2);
    expect(posts).toHaveLength(1);
  });

  it('retries a refusing webhook with backoff, shows its last error to admins, and sends it once it answers', async () => {
    refuseNext = 2;
    const before = posts.length;
    const approval = await submit('160.00');
    await waitFor(() => posts.length, (n) => n === before + 1, 'the chat message after two refusals', 8_000);
    expect(posts.at(-1)!.body.text).toContain(`#/approvals/${approval.id}`);
    const channels = await admin.value<NoticeChannelStatus[]>('notices:channels');
    expect(channels).toEqual([
      expect.objectContaining({ channel: 'email', configured: true, lastError: null }),
      expect.objectContaining({ channel: 'chat', configured: true, lastError: 'the chat webhook answered 503: try later', lastSentAt: expect.any(String) }),
    ]);
    // The webhook's address is a secret: not in the error an admin reads.
    expect(JSON.stringify(channels)).not.toContain('/hooks/');
    expect((await approver.call('notices:channels')).ok).toBe(false);
  });

  it('refuses a choice of a kind never told to the person\'s role, and keeps the choices saved before', async () => {
    const saved = await approver.value<NoticeChoices>('notices:get-choices');
    const refused = await approver.call('notices:set-choices', { email: 'app@example.com', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }, { kind: 'payout.declined', channel: 'email' }] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('is never told to your role (approver)') } });
    expect(await approver.value('notices:get-choices')).toEqual(saved);
    // The same kind is finance's to choose.
    expect(await maker.value<NoticeChoices>('notices:set-choices', { email: 'fin@example.com', chatUrl: null, choices: [{ kind: 'payout.declined', channel: 'email' }] })).toMatchObject({ choices: [{ kind: 'payout.declined', channel: 'email' }] });
  });
});
