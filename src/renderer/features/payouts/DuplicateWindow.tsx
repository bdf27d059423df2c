import { Button, Card, Group, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { FormError } from '../../components/FormError';
import { useAction } from '../../components/use-action';
import { useAccess } from '../../stores/access';
import { useApi } from '../../stores/context';

/**
 * How far back a payout is compared with earlier ones to the same account, amount and currency
 * (a possible duplicate is sent only once a person confirms it). Set with the limits; audited.
 */
export function DuplicateWindow({ days }: { days: number | null }) {
  const api = useApi();
  const mayChange = useAccess().can('limits:set-duplicate-window');
  const save = useAction();
  const [draft, setDraft] = useState('');
  const submit = async () => {
    const saved = await save.run(() => api.invoke('limits:set-duplicate-window', { days: Number(draft.trim()) }), 'Duplicate window saved');
    if (saved) setDraft('');
  };
  return (
    <Card
      withBorder
      component="form"
      aria-label="Possible duplicates"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Title order={5} mb={4}>
        Possible duplicates
      </Title>
      <Text size="sm" c="dimmed" mb="sm" data-testid="duplicate-window">
        A payout to the same account (IBAN, wallet, sort code and account number, a card's first 6 and last 4 digits), of the same amount and currency, as a payout of the profile in the last {days ?? '…'} days is flagged with a link to the earlier one, and is sent only once a person confirms it (audited). 30 days unless set here.
      </Text>
      {mayChange && (
        <Group align="flex-start" gap="sm">
          <TextInput label="Days to look back" placeholder={days === null ? '30' : String(days)} value={draft} onChange={(e) => setDraft(e.currentTarget.value)} w={190} inputMode="numeric" error={save.fieldErrors.days} />
          <Button type="submit" mt={25} loading={save.busy} disabled={draft.trim() === ''}>
            Save
          </Button>
        </Group>
      )}
      <FormError action={save} />
    </Card>
  );
}
