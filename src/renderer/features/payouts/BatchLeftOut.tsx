import { Alert, Anchor, List, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { BatchView, LeftOutRowView } from '../../../shared/contract';
import { errorMessage } from '../../../shared/error-message';
import { countOf } from '../../components/count';
import { useApi } from '../../stores/context';

/** Left-out rows listed at once; more are read on request. */
const PAGE = 100;

/**
 * The rows of the batch's file that were not sent, each with why (its problems, or a possible
 * duplicate nobody confirmed), as main keeps them with the batch: the file had more rows than the
 * batch sends, and its record says so.
 */
export function BatchLeftOut({ batch }: { batch: BatchView }) {
  const api = useApi();
  const [rows, setRows] = useState<LeftOutRowView[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = (afterLine: number | null) =>
    api
      .invoke('batches:left-out', { id: batch.id, afterLine, limit: PAGE })
      .then((page) => {
        setRows((current) => (afterLine === null ? page.items : [...current, ...page.items]));
        setNext(page.nextAfterLine);
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  useEffect(() => {
    if (batch.leftOut > 0) void load(null);
    // Fixed once the batch starts: read once per batch.
  }, [api, batch.id, batch.leftOut]);

  if (batch.leftOut === 0) return null;
  const fileRows = batch.declaredRows + batch.leftOut;
  return (
    <Alert color="orange" title={`${countOf(batch.leftOut, 'row of the file was', 'rows of the file were')} left out`} data-testid="batch-left-out">
      <Stack gap={4}>
        <Text size="sm">
          The file had {countOf(fileRows, 'row', 'rows')}: {batch.declaredRows.toLocaleString()} sent in this batch, {batch.leftOut.toLocaleString()} left out, each for the reason below.
        </Text>
        {error && (
          <Text size="sm" c="red">
            {error}
          </Text>
        )}
        <List size="sm" spacing={2} aria-label="Rows left out">
          {rows.map((row) => (
            <List.Item key={row.line} data-left-out-line={row.line}>
              Line {row.line}: {row.reason}
            </List.Item>
          ))}
        </List>
        {next !== null && (
          <Anchor component="button" type="button" size="sm" onClick={() => void load(next)}>
            Show more rows left out
          </Anchor>
        )}
      </Stack>
    </Alert>
  );
}
