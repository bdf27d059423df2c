import { Box, Button, Code, CopyButton, Group, ScrollArea, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { prettyJson } from '../transactions/format';

/**
 * Raw text as received or sent: pretty-printed when it is JSON (numbers exact), verbatim
 * otherwise. The text is whatever main handed over, already stripped of card data and secrets.
 */
export function RawBlock({ title, text, note, testId, maxHeight = 320 }: { title: string; text: string | null; note?: ReactNode; testId?: string; maxHeight?: number }) {
  const shown = text === null ? null : prettyJson(text);
  return (
    <Box data-testid={testId}>
      <Group justify="space-between" gap="xs" mb={4} wrap="nowrap">
        <Text fw={600} size="sm">
          {title}
        </Text>
        {shown !== null && (
          <CopyButton value={shown} timeout={1500}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={`Copy ${title}`}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        )}
      </Group>
      {note && (
        <Text size="xs" c="dimmed" mb={4}>
          {note}
        </Text>
      )}
      {shown === null ? (
        <Text size="sm" c="dimmed">
          None.
        </Text>
      ) : (
        <ScrollArea.Autosize mah={maxHeight} type="auto">
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {shown}
          </Code>
        </ScrollArea.Autosize>
      )}
    </Box>
  );
}
