import { ActionIcon, CopyButton, Group, Text } from '@mantine/core';
import { HoverTooltip } from './HoverTooltip';

/**
 * A reference with a copy button: support agents paste these into tickets. `truncate` (list cells):
 * one line cut at the end, the full value on hover (title) and in the copy button's name, so a
 * keyboard user on the button hears it whole. `valueInName`: the value in the button's name though
 * it is shown whole, where several buttons of one label sit together (search results). The
 * button's click stays its own: in a list row it copies, it does not open the row.
 */
export function CopyValue({ value, label, mono = true, truncate = false, valueInName = truncate }: { value: string; label?: string; mono?: boolean; truncate?: boolean; valueInName?: boolean }) {
  const name = `Copy ${label ?? 'value'}`;
  return (
    <Group gap={4} wrap="nowrap" style={truncate ? { minWidth: 0 } : undefined}>
      <Text size="sm" ff={mono ? 'monospace' : undefined} truncate={truncate ? 'end' : undefined} title={truncate ? value : undefined} style={truncate ? { minWidth: 0 } : { wordBreak: 'break-all' }}>
        {value}
      </Text>
      <CopyButton value={value} timeout={1500}>
        {({ copied, copy }) => (
          <HoverTooltip label={copied ? 'Copied' : name}>
            <ActionIcon
              variant="subtle"
              size="sm"
              onClick={(event) => {
                event.stopPropagation();
                copy();
              }}
              aria-label={valueInName ? `${name} ${value}` : name}
              style={{ flexShrink: 0 }}
            >
              {copied ? <CheckIcon /> : <CopyIcon />}
            </ActionIcon>
          </HoverTooltip>
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
