// The in-app channel on a team server: a maker submits a payout above the policy; each
// approver (never the maker) finds a notice in their inbox and is pushed it live, for their
// sessions only; one approves; the maker is told, once; a rejection tells the maker its reason;
// each marks their own read, never another's. Real team server on loopback, real core and emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, Inbox, InboxChanged, PayoutReviewView } from '../../../src/shared/contract';
import type { PushAudience } from '../../../src/main/services/event-bus';
import { payoutForm } from '../../helpers/fixtures';
import { tempDir } from '../../helpers/temp-dir';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { waitFor } from '../../helpers/poll';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
let maker: TeamClient;
let first: TeamClient;
let second: TeamClient;
let support: TeamClient;
const ids: Record<string, string> = {};
let localId: string;
const pushes: { payload: InboxChanged; audience: PushAudience | undefined }[] = [];
let seq = 0;

beforeAll(async () => {
  temp = tempDir('paydesk-notices-');
  server = await startTeamTestServer(temp.dir, { core: { notices: { announceMs: 50 } } });
  for (const [name, role] of [['ada', 'admin'], ['fin', 'finance'], ['app', 'approver'], ['ines', 'approver'], ['sue', 'support']] as const) ids[name] = (await server.addPerson(name, role)).id;
  const admin = await desktopClient(server.origin, 'ada');
  maker = await desktopClient(server.origin, 'fin');
  first = await desktopClient(server.origin, 'app');
  second = await desktopClient(server.origin, 'ines');
  support = await desktopClient(server.origin, 'sue');
  localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
  await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '500' });
  server.events.subscribe((channel, payload, audience) => {
    if (channel === 'notices:inbox-changed') pushes.push({ payload: payload as InboxChanged, audience });
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

async function submit(amount: string): Promise<ApprovalView> {
  const form = payoutForm('open_banking', { amount, reference: `ntc-${Date.now()}-${++seq}`, profileId: localId });
  const review = await maker.value<PayoutReviewView>('payouts:review', form);
  return maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
}

const inbox = (who: TeamClient) => who.value<Inbox>('notices:list', {});
const pushedTo = (person: string) => pushes.filter((p) => p.audience?.personId === person).flatMap((p) => p.payload.added);

describe('notices on a team server', () => {
  it('tells each approver of a request (pushed to them alone), then tells the maker once of the approval', async () => {
    const approval = await submit('150.00');
    for (const approver of [first, second]) {
      const { items, unread } = await inbox(approver);
      expect(unread).toBe(1);
      expect(items).toEqual([expect.objectContaining({ kind: 'approval.requested', link: `#/approvals/${approval.id}`, read: false, title: expect.stringContaining('150.00 EUR') })]);
    }
    expect((await inbox(maker)).items).toEqual([]);
    expect((await inbox(support)).items).toEqual([]);
    await waitFor(() => pushedTo(ids.app!).length + pushedTo(ids.ines!).length, (n) => n === 2, 'both approvers pushed', 5_000);
    expect(pushedTo(ids.fin!)).toEqual([]);
    expect(pushes.every((p) => p.audience?.personId !== undefined)).toBe(true);

    await first.value('approvals:approve', { id: approval.id });
    const told = (await inbox(maker)).items;
    expect(told).toEqual([expect.objectContaining({ kind: 'approval.approved', link: `#/approvals/${approval.id}`, body: expect.stringContaining('app approved your request') })]);
    await waitFor(() => pushedTo(ids.fin!).length, (n) => n === 1, 'the maker pushed', 5_000);
    // Nobody is told twice: a few more rounds of the announcer push nothing new.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pushedTo(ids.fin!)).toHaveLength(1);
    expect(pushedTo(ids.app!)).toHaveLength(1);
    expect((await inbox(first)).items).toHaveLength(1);
  });

  it('tells the maker the reason of a rejection; each marks only their own notices read', async () => {
    const approval = await submit('175.00');
    await second.value('approvals:reject', { id: approval.id, reason: 'wrong beneficiary' });
    const [rejected] = (await inbox(maker)).items;
    expect(rejected).toMatchObject({ kind: 'approval.rejected', body: expect.stringContaining('Reason: wrong beneficiary') });

    const before = (await inbox(first)).unread;
    expect(await maker.value('notices:mark-read', { ids: [rejected!.id] })).toEqual({ unread: 1 });
    // Another's notice id changes nothing of theirs.
    const [theirs] = (await inbox(first)).items;
    expect(await maker.value('notices:mark-read', { ids: [theirs!.id] })).toEqual({ unread: 1 });
    expect((await inbox(first)).unread).toBe(before);
    expect(await first.value('notices:mark-read', { all: true })).toEqual({ unread: 0 });
    expect((await inbox(first)).items.every((n) => n.read)).toBe(true);
    expect((await inbox(maker)).items.map((n) => [n.kind, n.read])).toEqual([
      ['approval.rejected', true],
      ['approval.approved', false],
    ]);
  });
});
