import { Alert, Button, Group, Loader, Radio, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import type { BankLineView, InvokeOutput, SettlementLineView } from '../../../../shared/contract';
import { Amount } from '../../../components/Amount';
import { Dialog } from '../../../components/Dialog';
import { LoadError } from '../../../components/LoadError';
import { useAction } from '../../../components/use-action';
import { navigate } from '../../../shell/use-route';
import { useAccess } from '../../../stores/access';
import { useApi } from '../../../stores/context';
import { subjectNoun } from '../../transactions/status';
import { RowTable } from '../../../components/RowTable';

type Detail = InvokeOutput<'statements:settlement'>;
type Search = InvokeOutput<'search:lookup'>;

/** A line's match in words: by which id, or by whom. */
function matchText(l: { matchedBy: string | null; decidedBy: string | null; note: string | null }): string {
  if (l.matchedBy === 'person' || l.matchedBy === 'proposal') return `${l.matchedBy === 'proposal' ? 'proposal accepted' : 'by hand'}${l.decidedBy ? ` by ${l.decidedBy}` : ''}${l.note ? `: ${l.note}` : ''}`;
  if (l.matchedBy) return `by ${l.matchedBy}`;
  return l.decidedBy ? `unmatched by ${l.decidedBy}${l.note ? `: ${l.note}` : ''}` : 'not matched';
}

interface Props {
  settlementId: string | null;
  profileId: string | null;
  onClose: () => void;
}

/** One settlement: its sums and bank credit, its lines with what each is matched to, and a person's match or unmatch with a note. */
export function SettlementDetail({ settlementId, profileId, onClose }: Props) {
  const api = useApi();
  const [detail, setDetail] = useState<Detail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deciding, setDeciding] = useState<{ kind: 'line'; line: SettlementLineView } | { kind: 'bank'; line: BankLineView } | null>(null);
  const load = useCallback(async () => {
    if (!settlementId) return;
    setError(null);
    try {
      setDetail(await api.invoke('statements:settlement', { settlementId, ...(profileId ? { profileId } : {}) }));
    } catch (e) {
      setError((e as Error).message);
    }
  }, [api, settlementId, profileId]);
  useEffect(() => {
    setDetail(null);
    void load();
  }, [load]);
  const s = detail?.settlement;
  return (
    <Dialog opened={settlementId !== null} onClose={onClose} title={`Settlement ${settlementId ?? ''}`} size="xl">
      {error && <LoadError title="The settlement could not be loaded" message={error} onRetry={() => void load()} />}
      {!detail && !error && <Loader size="sm" aria-label="Loading the settlement" />}
      {s && detail && (
        <Stack gap="sm" data-testid="settlement-detail">
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <Fact label="Gross" value={<Amount value={s.gross} currency={s.currency} />} />
            <Fact label="Fees" value={<Amount value={s.fees} currency={s.currency} />} />
            <Fact label="Net" value={<Amount value={s.net} currency={s.currency} />} />
            <Fact label="Bank credit" value={s.credited === null ? 'none matched' : <Amount value={s.credited} currency={s.currency} />} />
            <Fact label="Difference" value={s.difference === null ? '—' : <Amount value={s.difference} currency={s.currency} />} />
            <Fact label="Value date" value={s.valueDate ?? '—'} />
            <Fact label="Lines" value={s.lines.toLocaleString('en')} />
          </SimpleGrid>
          <Title order={4}>Bank credits</Title>
          {detail.bankLines.length === 0 ? (
            <Text size="sm" c="dimmed">
              No bank credit is matched to it.
            </Text>
          ) : (
            <Table aria-label="Bank credits of the settlement" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Booked</Table.Th>
                  <Table.Th style={{ textAlign: 'right' }}>Amount</Table.Th>
                  <Table.Th>Bank reference</Table.Th>
                  <Table.Th>Matched</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {detail.bankLines.map((b) => (
                  <Table.Tr key={b.id}>
                    <Table.Td>{b.bookingDate}</Table.Td>
                    <Table.Td style={{ textAlign: 'right' }}>
                      <Amount value={b.amount} currency={b.currency} />
                    </Table.Td>
                    <Table.Td ff="monospace">{b.entryRef ?? '—'}</Table.Td>
                    <Table.Td>{matchText(b)}</Table.Td>
                    <Table.Td>
                      <DecideButton label="Unmatch…" onClick={() => setDeciding({ kind: 'bank', line: b })} channel="statements:unmatch-bank-line" />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Title order={4}>Lines{detail.moreLines ? ` (the first ${detail.lines.length.toLocaleString('en')})` : ''}</Title>
          <div style={{ maxHeight: 360, overflowY: 'auto' }} tabIndex={0} role="region" aria-label="Lines of the settlement, scrollable">
            <RowTable
              aria-label="Lines of the settlement"
              verticalSpacing={4}
              stickyHeader
              headings={['Line', 'Reference', { label: 'Amount', style: { textAlign: 'right' } }, { label: 'Fee', style: { textAlign: 'right' } }, 'Matched', '']}
              items={detail.lines}
              row={(l) => (
                <Table.Tr key={l.id} data-line={l.id}>
                  <Table.Td>{l.line.toLocaleString('en')}</Table.Td>
                  <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {l.requestId ?? l.merchantReference ?? l.payinId ?? l.payoutId ?? '—'}
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>
                    <Amount value={l.amount} currency={l.currency} />
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>
                    <Amount value={l.fee} currency={l.currency} />
                  </Table.Td>
                  <Table.Td>
                    {l.subject && l.rowId !== null ? (
                      <Button variant="subtle" size="compact-sm" onClick={() => navigate(l.subject === 'payin' ? 'payins' : 'payouts', { id: l.rowId })}>
                        {subjectNoun(l.subject)} {matchText(l)}
                      </Button>
                    ) : (
                      <Text size="sm">{matchText(l)}</Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {l.type !== 'topup' && (
                      <DecideButton label={l.rowId === null ? 'Match…' : 'Unmatch…'} onClick={() => setDeciding({ kind: 'line', line: l })} channel="statements:match-line" />
                    )}
                  </Table.Td>
                </Table.Tr>
              )}
            />
          </div>
        </Stack>
      )}
      <DecisionDialog
        deciding={deciding}
        onClose={() => setDeciding(null)}
        onDone={() => {
          setDeciding(null);
          void load();
        }}
      />
    </Dialog>
  );
}

function Fact({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500}>
        {value}
      </Text>
    </div>
  );
}

function DecideButton({ label, onClick, channel }: { label: string; onClick: () => void; channel: 'statements:match-line' | 'statements:unmatch-bank-line' }) {
  const { can, why } = useAccess();
  return (
    <Button variant="default" size="compact-sm" onClick={onClick} disabled={!can(channel)} title={why(channel) ?? undefined}>
      {label}
    </Button>
  );
}

interface DecisionProps {
  deciding: { kind: 'line'; line: SettlementLineView } | { kind: 'bank'; line: BankLineView } | null;
  onClose: () => void;
  onDone: () => void;
}

/** A person's match or unmatch of a line, with the note that says why (audited with them). */
function DecisionDialog({ deciding, onClose, onDone }: DecisionProps) {
  const api = useApi();
  const action = useAction();
  const [note, setNote] = useState('');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Search['matches']>([]);
  const [chosen, setChosen] = useState<string | null>(null);
  const { reset } = action;
  useEffect(() => {
    setNote('');
    setQuery('');
    setFound([]);
    setChosen(null);
    reset();
  }, [deciding, reset]);
  const matching = deciding?.kind === 'line' && deciding.line.rowId === null;
  const search = async () => {
    const answer = await action.run(() => api.invoke('search:lookup', { query }));
    if (answer) setFound(answer.matches.filter((m) => deciding?.kind === 'line' && m.subject === (deciding.line.type === 'payin' ? 'payin' : 'payout')));
  };
  const submit = async () => {
    if (!deciding) return;
    const done = await action.run(async () => {
      if (deciding.kind === 'bank') return api.invoke('statements:unmatch-bank-line', { bankLineId: deciding.line.id, note });
      if (!matching) return api.invoke('statements:unmatch-line', { lineId: deciding.line.id, note });
      const match = found.find((m) => `${m.subject}:${m.id}` === chosen);
      if (!match) throw new Error('Choose the pay-in or payout it settles.');
      return api.invoke('statements:match-line', { lineId: deciding.line.id, subject: match.subject, rowId: match.id, note });
    }, 'Saved, with your note');
    if (done) onDone();
  };
  return (
    <Dialog opened={deciding !== null} onClose={onClose} title={matching ? 'Match the line by hand' : 'Unmatch'} size="lg">
      <Stack gap="sm">
        {matching && (
          <>
            <Group align="end" gap="xs">
              <TextInput label="Find the transaction" description="Its request_id, payin_id, payout_id or merchantReference" value={query} onChange={(e) => setQuery(e.currentTarget.value)} w={360} />
              <Button variant="default" onClick={() => void search()} disabled={!query.trim()}>
                Search
              </Button>
            </Group>
            {found.length > 0 && (
              <Radio.Group value={chosen} onChange={setChosen} label="It settles">
                <Stack gap={4} mt={4}>
                  {found.map((m) => (
                    <Radio key={`${m.subject}:${m.id}`} value={`${m.subject}:${m.id}`} label={`${subjectNoun(m.subject)} ${m.reference} · ${m.amount} ${m.currency} · ${m.statusCode ?? 'no status'}`} />
                  ))}
                </Stack>
              </Radio.Group>
            )}
          </>
        )}
        <Textarea label="Note" description="Why: it is kept with the line and in the audit log, with your name" value={note} onChange={(e) => setNote(e.currentTarget.value)} required autosize minRows={2} error={action.fieldErrors.note} />
        {action.error && !action.fieldErrors.note && (
          <Alert color="red" role="alert">
            {action.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={action.busy} disabled={!note.trim() || (matching && !chosen)}>
            {matching ? 'Match' : 'Unmatch'}
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
