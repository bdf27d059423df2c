import { ActionIcon, Box, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { prettyJson } from './format';

/** Raw text as received or sent (JSON pretty-printed, numbers exact), with a copy button. */
export function RawJson({ label, text }: { label: string; text: string }) {
  const pretty = prettyJson(text);
  return (
    <Box>
      <Group justify="space-between" gap="xs" mb={4}>
        <Text size="xs" fw={600} c="dimmed">
          {label}
        </Text>
        <CopyButton value={pretty} timeout={1500}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : `Copy ${label.toLowerCase()}`}>
              <ActionIcon variant="subtle" size="sm" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
                <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
                  {copied ? <path d="M20 6 9 17l-5-5" /> : <path d="M8 8h12v12H8zM4 16V4h12" />}
                </svg>
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
      <Code block style={{ maxHeight: 360, overflow: 'auto', whiteSpace: 'pre' }} aria-label={label}>
        {pretty}
      </Code>
    </Box>
  );
}
