import { FormError } from '../../components/FormError';
import { Alert, Button, Checkbox, Group, Select, Stack, TextInput } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { useState } from 'react';
import type { EnvironmentKind, ProfileInput, ProfileView } from '../../../shared/contract';
import { notificationReach } from '../../../shared/notification-reach';
import { GATEWAY_ADDRESS, NOTIFICATION_URL_HELP } from '../../../shared/profile-rules';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi } from '../../stores/context';

/** The fields this form shows: a refusal about them is shown beside each, not again below. */
const FORM_FIELDS = ['name', 'environment', 'baseUrl', 'merchantId', 'merchantSiteId', 'notificationPublicUrl', 'confirmed'] as const;

const environmentOptions = [
  { value: 'local', label: 'Local emulator (embedded, no account needed)' },
  { value: 'sandbox', label: 'Provider sandbox' },
  { value: 'live', label: 'Live (real money)' },
];

interface ProfileFormProps {
  onClose: () => void;
  editing: ProfileView | null;
  /** Opened to set the notification public URL (from a "cannot reach this machine" warning). */
  focusPublicUrl?: boolean;
}

/**
 * The profile form in its dialog. The dialog stays mounted and is opened and closed, so on closing it
 * gives the focus back to the button that opened it; the form inside starts afresh each time.
 */
export function ProfileFormModal({ opened, onClose, editing, focusPublicUrl = false }: ProfileFormProps & { opened: boolean }) {
  return (
    <Dialog opened={opened} onClose={onClose} title={editing ? `Edit ${editing.name}` : 'New profile'} size="lg">
      {opened && <ProfileForm onClose={onClose} editing={editing} focusPublicUrl={focusPublicUrl} />}
    </Dialog>
  );
}

function ProfileForm({ onClose, editing, focusPublicUrl = false }: ProfileFormProps) {
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
  const address = form.environment === 'local' ? null : GATEWAY_ADDRESS[form.environment];
  // Saving the active profile as live switches the person to real money: asked as a switch is.
  const becomesLive = editing !== null && editing.isActive && editing.environment !== 'live' && form.environment === 'live';
  const [liveConfirmed, setLiveConfirmed] = useState(false);
  // Where the gateway would post notifications: the public URL if one is set, else the listener.
  const listener = useLiveQuery(() => api.invoke('settings:get-listener'), []);
  const publicUrl = form.notificationPublicUrl?.trim() ?? '';
  const sentUrl = publicUrl !== '' ? publicUrl : listener.data ? `${listener.data.origin}/n/…` : null;
  const reach = sentUrl === null ? null : notificationReach(form.environment, sentUrl);

  const submit = async () => {
    const input: ProfileInput = {
      name: form.name,
      environment: form.environment,
      ...(remote ? { baseUrl: form.baseUrl, merchantId: form.merchantId, merchantSiteId: form.merchantSiteId } : {}),
      notificationPublicUrl: form.notificationPublicUrl ? form.notificationPublicUrl : null,
    };
    const saved = await action.run(
      () => (editing ? api.invoke('profiles:update', { id: editing.id, patch: input, ...(becomesLive ? { confirmed: liveConfirmed } : {}) }) : api.invoke('profiles:create', input)),
      editing ? 'Profile saved' : 'Profile created',
    );
    if (saved) onClose();
  };

  return (
    <Stack>
      <TextInput
        label="Name"
        description="Shown in the header and every picker: one name per profile, whatever its case and spaces."
        required
        value={form.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        error={action.fieldErrors.name}
        data-autofocus={focusPublicUrl ? undefined : true}
      />
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
      {becomesLive && (
        <Checkbox
          label={`“${editing.name}” is your active profile: switch it, and so you, to live (real money)`}
          checked={liveConfirmed}
          onChange={(e) => setLiveConfirmed(e.currentTarget.checked)}
          error={action.fieldErrors.confirmed}
        />
      )}
      {address && (
        <>
          <TextInput
            label={address.label}
            description={
              editing ? (
                <>
                  {address.help}
                  <br />
                  Changing the address or environment forgets the stored merchant-token: enter it again afterwards, so it is never sent to an address it was not given for.
                </>
              ) : (
                address.help
              )
            }
            placeholder={address.example}
            required
            value={form.baseUrl ?? ''}
            onChange={(e) => set({ baseUrl: e.currentTarget.value })}
            error={action.fieldErrors.baseUrl}
          />
          <Group grow>
            <TextInput label="merchant_id" description="As your integration settings give it: no spaces." required value={form.merchantId ?? ''} onChange={(e) => set({ merchantId: e.currentTarget.value })} error={action.fieldErrors.merchantId} />
            <TextInput label="merchant_site_id" description="As your integration settings give it: no spaces." required value={form.merchantSiteId ?? ''} onChange={(e) => set({ merchantSiteId: e.currentTarget.value })} error={action.fieldErrors.merchantSiteId} />
          </Group>
        </>
      )}
      <TextInput
        label="Notification public URL (optional)"
        description={NOTIFICATION_URL_HELP[form.environment]}
        value={form.notificationPublicUrl ?? ''}
        onChange={(e) => set({ notificationPublicUrl: e.currentTarget.value })}
        error={action.fieldErrors.notificationPublicUrl}
        data-autofocus={focusPublicUrl ? true : undefined}
      />
      {reach && !reach.reachable && (
        <Alert color="orange" title="Notifications cannot reach this machine" data-testid="profile-form-unreachable">
          {reach.warning} Set the public URL above to the address where the gateway reaches this machine&apos;s listener.
        </Alert>
      )}
      <FormError action={action} shown={FORM_FIELDS} mt={0} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={() => void submit()} loading={action.busy}>
          {editing ? 'Save' : 'Create profile'}
        </Button>
      </Group>
    </Stack>
  );
}
