import { Text, ThemeIcon, Timeline, Title } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import type { BatchView } from '../../../shared/contract';
import { describeBatchEvent } from './batch-events';

/**
 * The course of one batch, oldest first: its start, each pause, each time the app stopped while it
 * ran (and what was in flight then), each resume and who made it, and its end.
 */
export function BatchEvents({ batch }: { batch: BatchView }) {
  const interruptions = batch.history.filter((e) => e.kind === 'interrupted').length;
  return (
    <section aria-labelledby={`batch-${batch.id}-history`} data-testid="batch-history">
      <Title order={5} id={`batch-${batch.id}-history`} mb="xs">
        History{interruptions > 0 ? ` · survived ${interruptions} ${interruptions === 1 ? 'interruption' : 'interruptions'}` : ''}
      </Title>
      {batch.historyTotal > batch.history.length && (
        <Text size="xs" c="dimmed" mb="xs">
          The latest {batch.history.length} of {batch.historyTotal} events.
        </Text>
      )}
      <Timeline bulletSize={14} lineWidth={2} active={batch.history.length - 1}>
        {batch.history.map((event) => {
          const text = describeBatchEvent(event);
          return (
            <Timeline.Item
              key={event.id}
              color={text.warning ? 'orange' : event.kind === 'finished' ? 'teal' : 'blue'}
              bullet={text.warning ? <ThemeIcon size={14} radius="xl" color="orange" aria-hidden /> : undefined}
              title={
                <Text size="sm" fw={600}>
                  {text.title}
                </Text>
              }
              data-testid="batch-event"
              data-kind={event.kind}
              data-actor={event.actor}
            >
              <Text size="xs" c="dimmed" title={event.at}>
                <DateTime iso={event.at} />
              </Text>
              {text.detail && <Text size="sm">{text.detail}</Text>}
            </Timeline.Item>
          );
        })}
      </Timeline>
    </section>
  );
}
