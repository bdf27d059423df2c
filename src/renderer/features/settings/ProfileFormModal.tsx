import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { EnvironmentKind, ProfileInput, ProfileView } from '../../../shared/contract';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';

const environmentOptions = [
  { value: 'local', label: 'Local emulator (embedded, no account needed)' },
  { value: 'sandbox', label: 'Provider sandbox' },
  { value: 'live', label: 'Live (real money)' },
];

export function ProfileFormModal({ opened, onClose, editing }: { opened: boolean; onClose: () => void; editing: ProfileView | null }) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState<ProfileInput>(() =>
    editing
      ? {
          name: editing.name,
          environment: editing.environment,
          baseUrl: editing.environment === 'local' ? undefined : editing.baseUrl,
          merchantId: editing.merchantId,
          merchantSiteId: editing.merchantSiteId,
          notificationPublicUrl: editing.notificationPublicUrl,
        }
      : { name: '', environment: 'sandbox' },
  );
  const set = (patch: Partial<ProfileInput>) => setForm((current) => ({ ...current, ...patch }));
  const remote = form.environment !== 'local';

  const submit = async () => {
    const input: ProfileInput = {
      name: form.name,
      environment: form.environment,
      ...(remote ? { baseUrl: form.baseUrl, merchantId: form.merchantId, merchantSiteId: form.merchantSiteId } : {}),
      notificationPublicUrl: form.notificationPublicUrl ? form.notificationPublicUrl : null,
    };
    const saved = await action.run(
      () => (editing ? api.invoke('profiles:update', { id: editing.id, patch: input }) : api.invoke('profiles:create', input)),
      editing ? 'Profile saved' : 'Profile created',
    );
    if (saved) onClose();
  };

  return (
    <Modal opened={opened} onClose={onClose} title={editing ? `Edit ${editing.name}` : 'New profile'} size="lg">
      <Stack>
        <TextInput label="Name" required value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} error={action.fieldErrors.name} data-autofocus />
        <Select
          label="Environment"
          data={environmentOptions}
          value={form.environment}
          allowDeselect={false}
          onChange={(value) => set({ environment: (value ?? 'sandbox') as EnvironmentKind })}
          error={action.fieldErrors.environment}
        />
        {form.environment === 'live' && (
          <Alert color="red" title="Live environment">
            Every pay-in and payout sent with this profile moves real money.
          </Alert>
        )}
        {remote && (
          <>
            <TextInput
              label={form.environment === 'sandbox' ? 'Sandbox address ({sandbox_url}, ends in /api/)' : 'Live base URL (ends in /api/v2)'}
              description={editing ? 'Changing the address or environment forgets the stored merchant-token: enter it again afterwards, so it is never sent to an address it was not given for.' : undefined}
              placeholder={form.environment === 'sandbox' ? 'https://sandbox.example.com/api/' : 'https://pay.example.com/api/v2'}
              required
              value={form.baseUrl ?? ''}
              onChange={(e) => set({ baseUrl: e.currentTarget.value })}
              error={action.fieldErrors.baseUrl}
            />
            <Group grow>
              <TextInput label="merchant_id" required value={form.merchantId ?? ''} onChange={(e) => set({ merchantId: e.currentTarget.value })} error={action.fieldErrors.merchantId} />
              <TextInput label="merchant_site_id" required value={form.merchantSiteId ?? ''} onChange={(e) => set({ merchantSiteId: e.currentTarget.value })} error={action.fieldErrors.merchantSiteId} />
            </Group>
          </>
        )}
        <TextInput
          label="Notification public URL (optional)"
          description="Where the gateway can reach this machine's listener, e.g. behind a reverse proxy. Leave empty for the local listener."
          value={form.notificationPublicUrl ?? ''}
          onChange={(e) => set({ notificationPublicUrl: e.currentTarget.value })}
          error={action.fieldErrors.notificationPublicUrl}
        />
        {action.error && (
          <Text c="red" size="sm" role="alert">
            {action.error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={action.busy}>
            {editing ? 'Save' : 'Create profile'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
