import { ActionIcon, Button, Group, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { memo, useEffect, useState } from 'react';
import type { SavedView, SavedViewFilters, TransactionSubject } from '../../../shared/contract';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';

interface SavedViewsControlProps {
  subject: TransactionSubject;
  /** The list's current query. */
  current: SavedViewFilters;
  /** Same filters in any order → same key (the view matching the list is shown as selected). */
  keyOf: (query: SavedViewFilters) => string;
  onApply: (filters: SavedViewFilters) => void;
}

/** Named filter views, kept by main: apply one, save the current filters under a name, delete one. Memoised like the filter bars. */
export const SavedViewsControl = memo(function SavedViewsControl({ subject, current, keyOf, onApply }: SavedViewsControlProps) {
  const api = useApi();
  const [views, setViews] = useState<SavedView[] | null>(null);
  const [saving, setSaving] = useState(false);
  const [name, setName] = useState('');
  const loading = useAction();
  const saveAction = useAction();
  const deleteAction = useAction();
  const { run: runLoad } = loading;

  useEffect(() => {
    void runLoad(() => api.invoke('views:list', { subject })).then((answer) => answer && setViews(answer.views));
  }, [api, subject, runLoad]);

  const currentKey = keyOf(current);
  const selected = views?.find((v) => keyOf(v.filters) === currentKey)?.name ?? null;

  const save = async () => {
    const answer = await saveAction.run(() => api.invoke('views:save', { subject, name, filters: current }), `View "${name.trim()}" saved.`);
    if (answer) {
      setViews(answer.views);
      setSaving(false);
    }
  };
  const remove = async (viewName: string) => {
    const answer = await deleteAction.run(() => api.invoke('views:delete', { subject, name: viewName }), `View "${viewName}" deleted.`);
    if (answer) setViews(answer.views);
  };

  return (
    <Group gap="xs" align="flex-end">
      <Select
        label="Saved view"
        placeholder={views === null ? (loading.error ? 'Could not load views' : 'Loading…') : views.length === 0 ? 'No saved views yet' : 'Apply a saved view'}
        data={(views ?? []).map((v) => v.name)}
        value={selected}
        onChange={(value) => {
          const view = views?.find((v) => v.name === value);
          if (view) onApply(view.filters);
        }}
        disabled={!views || views.length === 0}
        error={loading.error ?? deleteAction.error ?? undefined}
        w={200}
        allowDeselect={false}
      />
      {selected !== null && (
        <Tooltip label={`Delete view "${selected}"`}>
          <ActionIcon variant="subtle" color="red" size="lg" mb={2} aria-label={`Delete view ${selected}`} onClick={() => void remove(selected)} loading={deleteAction.busy}>
            <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
              <path d="M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6" />
            </svg>
          </ActionIcon>
        </Tooltip>
      )}
      <Button
        variant="default"
        onClick={() => {
          setName(selected ?? '');
          saveAction.reset();
          setSaving(true);
        }}
      >
        Save view…
      </Button>
      <Dialog opened={saving} onClose={() => setSaving(false)} title="Save the current filters as a view">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <Stack>
            <TextInput
              label="View name"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={saveAction.fieldErrors.name ?? (saveAction.error && !saveAction.fieldErrors.name ? saveAction.error : undefined)}
              data-autofocus
              maxLength={60}
            />
            <Text size="xs" c="dimmed">
              A view with the same name is replaced.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setSaving(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={saveAction.busy}>
                Save view
              </Button>
            </Group>
          </Stack>
        </form>
      </Dialog>
    </Group>
  );
});
