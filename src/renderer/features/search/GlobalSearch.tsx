import { Badge, Box, Button, Group, Kbd, Loader, Stack, Text, TextInput } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { Amount } from '../../components/Amount';
import { CopyValue } from '../../components/CopyValue';
import { DateTime } from '../../components/DateTime';
import { useHotkeys } from '@mantine/hooks';
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { OrphanMatch, SearchMatch } from '../../../shared/contract';
import { eventSpec, subjectOf } from '../../../shared/spec/events';
import { navigate } from '../../shell/use-route';
import { cardLabel } from '../transactions/card';
import { EventStatusBadge } from '../transactions/EventStatusBadge';
import { StatusBadge } from '../transactions/StatusBadge';
import { subjectNoun } from '../transactions/status';
import { useLookup, type LookupAnswer } from './use-lookup';
import { requestLandingFocus } from '../../components/focus-landing';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const shortcut = isMac ? '⌘K' : 'Ctrl+K';

const matchedLabels: Record<SearchMatch['matchedOn'] | OrphanMatch['matchedOn'], string> = {
  request_id: 'request_id',
  payin_id: 'payin_id',
  merchantReference: 'merchantReference',
  payout_id: 'payout_id',
  email: 'e-mail',
};

/** One line of the result list: a transaction, or a notification kept as an orphan. */
type SearchOption = { kind: 'transaction'; match: SearchMatch } | { kind: 'orphan'; orphan: OrphanMatch };

const optionsOf = ({ matches, orphans }: LookupAnswer): SearchOption[] => [
  ...matches.map((match): SearchOption => ({ kind: 'transaction', match })),
  ...orphans.map((orphan): SearchOption => ({ kind: 'orphan', orphan })),
];

function go(option: SearchOption) {
  // The focus lands on the heading of what opens (the dialog closing gives it back to nothing on that screen).
  requestLandingFocus();
  if (option.kind === 'orphan') navigate('webhooks', { id: option.orphan.id });
  else navigate(option.match.subject === 'payin' ? 'payins' : 'payouts', { id: option.match.id });
}

/**
 * Global search (Ctrl/Cmd+K anywhere, or the header button): an exact request_id, payin_id,
 * payout_id, merchantReference or e-mail jumps to the transaction. A notification about a
 * transaction the ledger does not hold (an orphan) is listed too, and opens in the webhook inspector.
 */
export function GlobalSearch() {
  const [opened, setOpened] = useState(false);
  // Inputs included: the shortcut works wherever the focus is.
  useHotkeys([['mod+K', () => setOpened(true)]], []);
  return (
    <>
      {/* Named by what it shows (WCAG 2.5.3): "Search transactions Ctrl+K". */}
      <Button variant="default" size="xs" onClick={() => setOpened(true)} aria-keyshortcuts={isMac ? 'Meta+K' : 'Control+K'} rightSection={<Kbd size="xs">{shortcut}</Kbd>}>
        Search transactions
      </Button>
      <Dialog opened={opened} onClose={() => setOpened(false)} title="Find a transaction" size="lg" yOffset="10vh">
        {opened && <SearchPanel onDone={() => setOpened(false)} />}
      </Dialog>
    </>
  );
}

function SearchPanel({ onDone }: { onDone: () => void }) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const { matches, orphans, answered, busy, error, now } = useLookup(query);
  const options = optionsOf({ matches, orphans });
  useEffect(() => setActive(0), [answered]);

  const open = (option: SearchOption) => {
    onDone();
    go(option);
  };

  const onKeyDown = async (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (options.length > 0) setActive((i) => (i + (event.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const found = answered === query.trim() ? options : optionsOf(await now());
      const chosen = found[answered === query.trim() ? active : 0];
      // One exact match: straight to it. Several: Enter opens the highlighted one.
      if (chosen) open(chosen);
    }
  };

  const listId = 'global-search-results';
  const trimmed = query.trim();
  return (
    <Stack gap="sm">
      {/*
        A combobox whose popup is a grid (ARIA 1.2), not a listbox: each result carries a copy
        button, and an option may hold nothing interactive. The arrows move the highlighted row
        (aria-activedescendant on its cell) and Enter opens it, all from the field; Tab reaches the
        copy buttons, whose Enter copies and opens nothing.
      */}
      <TextInput
        label="Reference or e-mail"
        description="Exact request_id, payin_id, payout_id, merchantReference or customer e-mail"
        placeholder="e.g. 7f3c…, ana@example.com"
        value={query}
        onChange={(event) => setQuery(event.currentTarget.value)}
        onKeyDown={(event) => void onKeyDown(event)}
        rightSection={busy ? <Loader size="xs" aria-label="Searching" /> : null}
        data-autofocus
        role="combobox"
        aria-haspopup="grid"
        aria-expanded={options.length > 0}
        aria-controls={listId}
        aria-activedescendant={options.length > 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        error={error ?? undefined}
      />
      <Box id={listId} role="grid" aria-label="Matches" aria-readonly>
        {options.map((option, index) => (
          <Box
            key={option.kind === 'orphan' ? `notification-${option.orphan.id}` : `${option.match.subject}-${option.match.id}`}
            role="row"
            onClick={() => open(option)}
            onMouseEnter={() => setActive(index)}
            p="xs"
            style={{ cursor: 'pointer', borderRadius: 'var(--mantine-radius-sm)', background: index === active ? 'var(--mantine-color-default-hover)' : undefined }}
          >
            <Box role="gridcell" id={`${listId}-${index}`} aria-selected={index === active}>
              {option.kind === 'orphan' ? <OrphanLine orphan={option.orphan} /> : <TransactionLine match={option.match} />}
            </Box>
          </Box>
        ))}
      </Box>
      {trimmed !== '' && answered === trimmed && options.length === 0 && !error && (
        <Text c="dimmed" size="sm" role="status">
          Nothing matches "{trimmed}" exactly. References and e-mails must be complete; for a prefix, use the pay-ins list's search.
        </Text>
      )}
      <Text size="xs" c="dimmed">
        ↑ ↓ to choose, Enter to open, Esc to close.
      </Text>
    </Stack>
  );
}

function TransactionLine({ match }: { match: SearchMatch }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Stack gap={2} style={{ minWidth: 0 }}>
        <Group gap="xs" wrap="nowrap">
          <Badge size="xs" variant="outline" color={match.subject === 'payin' ? 'indigo' : 'violet'}>
            {match.subject === 'payin' ? 'Pay-in' : 'Payout'}
          </Badge>
          <Box data-testid="search-reference" style={{ minWidth: 0 }}>
            <CopyValue value={match.reference} label={match.subject === 'payin' ? 'request_id' : 'merchantReference'} valueInName />
          </Box>
        </Group>
        <Text size="xs" c="dimmed">
          matched on {matchedLabels[match.matchedOn]} · {match.email}
          {match.card ? ` · ${cardLabel(match.card)}` : ''} · <DateTime iso={match.createdAt} />
        </Text>
      </Stack>
      <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
        <Text span size="sm">
          <Amount value={match.amount} currency={match.currency} />
        </Text>
        <StatusBadge subject={match.subject} code={match.statusCode} />
      </Group>
    </Group>
  );
}

/** A notification about a transaction the ledger does not hold: what it says, and that nothing was recorded. */
function OrphanLine({ orphan }: { orphan: OrphanMatch }) {
  const subject = subjectOf(orphan.event);
  const names = eventSpec(orphan.event)?.references ?? { gatewayId: 'transaction id', merchantReference: 'reference' };
  const reference = orphan.requestRef !== null ? { value: orphan.requestRef, label: names.merchantReference } : orphan.transactionRef !== null ? { value: orphan.transactionRef, label: names.gatewayId } : null;
  return (
    <Group justify="space-between" wrap="nowrap">
      <Stack gap={2} style={{ minWidth: 0 }}>
        <Group gap="xs" wrap="nowrap">
          <Badge size="xs" variant="outline" color="orange">
            Orphan notification
          </Badge>
          {reference && (
            <Box data-testid="search-reference" style={{ minWidth: 0 }}>
              <CopyValue value={reference.value} label={reference.label} valueInName />
            </Box>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          matched on {matchedLabels[orphan.matchedOn]} · received <DateTime iso={orphan.receivedAt} /> · no {subject === null ? 'transaction' : subjectNoun(subject)} with it in the ledger
        </Text>
      </Stack>
      {orphan.statusCode !== null && (
        <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
          <EventStatusBadge event={orphan.event} code={orphan.statusCode} />
        </Group>
      )}
    </Group>
  );
}
