// Statements on a team server: the file goes from the person's browser or desk to the
// server in chunks over HTTP; finance imports and matches, support and approvers read; the import,
// its layout and every decision name the person who made them, and are the team's, not one
// person's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvokeChannel, InvokeInput, InvokeOutput } from '../../../src/shared/contract';
import { uploadStatement } from '../../helpers/statements';
import { tempDir } from '../../helpers/temp-dir';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
let finance: TeamClient;
let support: TeamClient;
let approver: TeamClient;

const caller =
  (client: TeamClient) =>
  <C extends InvokeChannel>(channel: C, input?: InvokeInput<C>): Promise<InvokeOutput<C>> =>
    client.value<InvokeOutput<C>>(channel, input);

const REPORT = 'settlement_id,payin_id,currency,amount,fee,booking_date\r\nS-TEAM,team-1,EUR,10.00,0.30,2024-06-03\r\nS-TEAM,team-2,EUR,5.00,0.15,2024-06-03\r\n';

beforeAll(async () => {
  temp = tempDir('paydesk-team-statements-');
  server = await startTeamTestServer(temp.dir);
  for (const [name, role] of [['fiona', 'finance'], ['sam', 'support'], ['april', 'approver']] as const) await server.addPerson(name, role);
  finance = await desktopClient(server.origin, 'fiona');
  support = await desktopClient(server.origin, 'sam');
  approver = await desktopClient(server.origin, 'april');
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

describe('statements on a team server', () => {
  it('lets finance upload and import over HTTP, names them on the import, and shares the layout with the team', async () => {
    const call = caller(finance);
    const uploadId = await uploadStatement(call, 'settlement', 'team.csv', REPORT);
    const inspection = await call('statements:inspect', { uploadId, source: 'Team PSP' });
    const result = await call('statements:import', { uploadId, source: 'Team PSP', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 2, added: 2, createdBy: 'fiona' } });

    // The team's: support sees the import and the layout finance left, and the queue it made.
    expect((await caller(support)('statements:imports', {})).items[0]).toMatchObject({ fileName: 'team.csv', createdBy: 'fiona' });
    expect((await caller(support)('statements:layouts', { kind: 'settlement' })).items).toEqual([expect.objectContaining({ source: 'Team PSP', updatedBy: 'fiona' })]);
    expect((await caller(approver)('statements:breaks', { queue: 'unknown_to_ledger' })).total).toBe(2);
  });

  it('refuses support and approvers an upload, an import or a decision, and lets them read and export', async () => {
    for (const client of [support, approver]) {
      for (const [channel, input] of [
        ['statements:upload-begin', { kind: 'settlement', fileName: 'x.csv', size: 10 }],
        ['statements:import', { uploadId: '00000000-0000-4000-8000-000000000000', source: 'x' }],
        ['statements:unmatch-line', { lineId: 1, note: 'x' }],
        ['statements:decide-proposal', { proposalId: 1, accept: true }],
      ] as const) {
        expect(await client.call(channel, input)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      }
      expect(await client.call('statements:export-csv', { queue: 'unknown_to_ledger' })).toMatchObject({ ok: true });
      expect(await client.call('statements:settlement', { settlementId: 'S-TEAM' })).toMatchObject({ ok: true });
    }
  });

  it('audits a person\'s unmatch with their name and keeps it on the line', async () => {
    const call = caller(finance);
    const line = (await call('statements:settlement', { settlementId: 'S-TEAM' })).lines[0]!;
    const decided = await call('statements:unmatch-line', { lineId: line.id, note: 'checked by hand' });
    expect(decided).toMatchObject({ decidedBy: 'fiona', note: 'checked by hand' });
    const entry = (await server.core.ledger.all<{ actor: string; action: string }>("SELECT actor, action FROM audit_log WHERE action = 'statement.line_unmatched'"))[0];
    expect(entry).toEqual({ actor: 'fiona', action: 'statement.line_unmatched' });
  });
});
