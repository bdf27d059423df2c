import { SegmentedControl } from '@mantine/core';
import type { Settings } from '../../shared/contract';
import { useApp } from '../stores/context';

export function ThemeToggle() {
  const theme = useApp((state) => state.settings?.theme ?? 'auto');
  const updateSettings = useApp((state) => state.updateSettings);
  return (
    <SegmentedControl
      size="xs"
      aria-label="Theme"
      value={theme}
      onChange={(value) => void updateSettings({ theme: value as Settings['theme'] })}
      data={[
        { value: 'light', label: 'Light' },
        { value: 'dark', label: 'Dark' },
        { value: 'auto', label: 'Auto' },
      ]}
    />
  );
}
