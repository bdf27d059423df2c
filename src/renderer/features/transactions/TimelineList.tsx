import { Badge, Button, Collapse, Group, Stack, Text, Timeline } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import { HeadersTable } from '../../components/HeadersTable';
import { useId, useState } from 'react';
import type { TimelineEntry, TransactionSubject } from '../../../shared/contract';
import { OutcomeBadge } from '../webhooks/OutcomeBadge';
import { RawJson } from './RawJson';
import { StatusBadge } from './StatusBadge';
import { EventStatusBadge } from './EventStatusBadge';

const kinds: Record<TimelineEntry['kind'], { label: string; color: string; letter: string }> = {
  request: { label: 'Request', color: 'indigo', letter: 'Q' },
  response: { label: 'Response', color: 'cyan', letter: 'A' },
  notification: { label: 'Notification', color: 'orange', letter: 'N' },
  status_read: { label: 'Status read', color: 'teal', letter: 'S' },
  audit: { label: 'Audit', color: 'gray', letter: 'U' },
};

/** Every request, answer, notification, status read and audit entry, oldest first; raw JSON one click away. */
export function TimelineList({ subject, entries }: { subject: TransactionSubject; entries: readonly TimelineEntry[] }) {
  if (entries.length === 0) return <Text c="dimmed">Nothing recorded for this transaction yet.</Text>;
  return (
    <Timeline bulletSize={24} lineWidth={2} active={entries.length - 1} aria-label="Timeline">
      {entries.map((entry) => (
        <Timeline.Item
          key={entry.key}
          color={kinds[entry.kind].color}
          bullet={<Text size="xs" fw={700} aria-hidden="true">{kinds[entry.kind].letter}</Text>}
          title={<EntryTitle subject={subject} entry={entry} />}
          data-testid="timeline-entry"
          data-kind={entry.kind}
        >
          <EntryBody entry={entry} />
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

function EntryTitle({ subject, entry }: { subject: TransactionSubject; entry: TimelineEntry }) {
  return (
    <Group gap="xs" wrap="wrap">
      <Badge size="xs" variant="light" color={kinds[entry.kind].color}>
        {kinds[entry.kind].label}
      </Badge>
      <Text size="sm" fw={600}>
        {entry.title}
      </Text>
      {/* A notification's status is its event's (a tokenization's is the vaulting's, not the pay-in's). */}
      {entry.statusCode !== null &&
        (entry.kind === 'notification' ? <EventStatusBadge event={entry.event} code={entry.statusCode} size="xs" /> : <StatusBadge subject={subject} code={entry.statusCode} size="xs" />)}
      {entry.outcome !== null &&
        (entry.kind === 'notification' ? (
          <OutcomeBadge outcome={entry.outcome} size="xs" />
        ) : (
          <Badge size="xs" variant="outline" color="gray">
            {entry.outcome}
          </Badge>
        ))}
    </Group>
  );
}

function EntryBody({ entry }: { entry: TimelineEntry }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const hasRaw = entry.request !== null || entry.response !== null || (entry.headers !== null && entry.headers.length > 0);
  const bodyLabel = entry.kind === 'notification' ? 'Notification body' : entry.kind === 'audit' ? 'Audit details' : 'Request';
  return (
    <Stack gap={4} mt={2}>
      <Text size="xs" c="dimmed" title={entry.at}>
        <DateTime iso={entry.at} />
      </Text>
      {entry.detail !== null && <Text size="sm">{entry.detail}</Text>}
      {hasRaw && (
        <>
          <Button variant="subtle" size="compact-xs" w="fit-content" onClick={() => setOpen((o) => !o)} aria-expanded={open} aria-controls={panelId}>
            {open ? 'Hide raw JSON' : 'Show raw JSON'}
          </Button>
          <Collapse expanded={open} id={panelId}>
            {open && (
              <Stack gap="xs" py="xs">
                {entry.request !== null && <RawJson label={bodyLabel} text={entry.request} />}
                {entry.response !== null && <RawJson label="Response" text={entry.response} />}
                {entry.headers !== null && entry.headers.length > 0 && <HeadersTable headers={entry.headers} nameWidth={220} withTableBorder fz="xs" aria-label="Headers" />}
              </Stack>
            )}
          </Collapse>
        </>
      )}
    </Stack>
  );
}
