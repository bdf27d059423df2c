import { ActionIcon, CopyButton, Group, Text, Tooltip } from '@mantine/core';

/** A reference with a copy button: support agents paste these into tickets. */
export function CopyValue({ value, label, mono = true, truncate = false }: { value: string; label?: string; mono?: boolean; truncate?: boolean }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Text size="sm" ff={mono ? 'monospace' : undefined} truncate={truncate ? 'end' : undefined} title={truncate ? value : undefined} style={truncate ? { minWidth: 0 } : { wordBreak: 'break-all' }}>
        {value}
      </Text>
      <CopyButton value={value} timeout={1500}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${label ?? 'value'}`}>
            <ActionIcon variant="subtle" size="sm" onClick={copy} aria-label={`Copy ${label ?? 'value'}`}>
              {copied ? <CheckIcon /> : <CopyIcon />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

function CopyIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <rect x="9" y="9" width="13" height="13" rx="2" />
      <path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <path d="M20 6 9 17l-5-5" />
    </svg>
  );
}
