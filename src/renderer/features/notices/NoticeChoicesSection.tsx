import { FormError } from '../../components/FormError';
import { Button, Card, Checkbox, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { NOTICE_CHANNELS, NOTICE_KINDS, type NoticeChannelName, type NoticeChoices, type NoticeKind } from '../../../shared/contract';
import { NOTICE_KIND_LABELS, NOTICE_KIND_ROLES } from '../../../shared/notice-kind-labels';
import { ROLE_LABELS } from '../../../shared/contract/roles';
import { LoadError } from '../../components/LoadError';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi, useApp } from '../../stores/context';

const CHANNEL_WORDS = { email: 'E-mail', chat: 'Chat' } as const satisfies Record<NoticeChannelName, string>;
const choiceKey = (kind: NoticeKind, channel: NoticeChannelName) => `${kind} ${channel}`;

/** Where each channel reaches the person: the choices' field, and its words. */
const ADDRESSES = [
  { field: 'email', label: 'Your e-mail address', description: 'Leave empty to receive no e-mail.', type: 'email', autoComplete: 'email', maw: 420 },
  {
    field: 'chatUrl',
    label: 'Your chat incoming-webhook URL',
    description: 'The address Slack, Mattermost or Microsoft Teams gives an incoming webhook (https://…). Leave empty to receive nothing in chat.',
    type: 'url',
    autoComplete: 'off',
    maw: 640,
  },
] as const satisfies readonly { field: keyof Omit<NoticeChoices, 'choices'>; [more: string]: unknown }[];
type AddressField = (typeof ADDRESSES)[number]['field'];

/**
 * The signed-in person's own choices (a team server's): their e-mail address, their chat
 * incoming-webhook URL, and which kinds reach them on which channel. Main checks them
 * (notices:set-choices) and its refusals stand beside the field they are about.
 */
export function NoticeChoicesSection() {
  const api = useApi();
  const role = useApp((state) => state.team?.person?.role);
  const query = useLiveQuery(() => api.invoke('notices:get-choices'), []);
  return (
    <Card withBorder data-testid="notice-choices">
      <Title order={3} mb="xs">
        What reaches you by e-mail and chat
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Every notice meant for you is in your inbox (the bell). Here you choose which also reach you by e-mail or in chat.{' '}
        {role ? `Listed are the kinds told to your role (${ROLE_LABELS[role]}).` : ''}
      </Text>
      {query.error && !query.data && <LoadError title="Your choices could not be read" message={query.error} onRetry={query.reload} />}
      {!query.data && !query.error && <Skeleton h={160} aria-label="Loading your choices" />}
      {query.data && <ChoicesForm saved={query.data} onSaved={query.reload} kinds={role ? NOTICE_KINDS.filter((kind) => NOTICE_KIND_ROLES[kind].includes(role)) : NOTICE_KINDS} />}
    </Card>
  );
}

/** `kinds`: those told to the person's role; a choice saved of another kind (before a role change) is dropped at the next save. */
function ChoicesForm({ saved, onSaved, kinds }: { saved: NoticeChoices; onSaved: () => void; kinds: readonly NoticeKind[] }) {
  const api = useApi();
  const action = useAction();
  const [addresses, setAddresses] = useState<Record<AddressField, string>>({ email: saved.email ?? '', chatUrl: saved.chatUrl ?? '' });
  const [chosen, setChosen] = useState(() => new Set(saved.choices.map((choice) => choiceKey(choice.kind, choice.channel))));
  const edit = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    action.reset();
  };
  const toggle = (key: string, on: boolean) =>
    edit(setChosen)(
      ((next) => {
        if (on) next.add(key);
        else next.delete(key);
        return next;
      })(new Set(chosen)),
    );
  const save = async () => {
    const choices = kinds.flatMap((kind) => NOTICE_CHANNELS.filter((channel) => chosen.has(choiceKey(kind, channel))).map((channel) => ({ kind, channel })));
    const address = (field: AddressField) => addresses[field].trim() || null;
    const result = await action.run(() => api.invoke('notices:set-choices', { email: address('email'), chatUrl: address('chatUrl'), choices }), 'Your notice choices are saved');
    if (result) onSaved();
  };
  return (
    <form
      aria-label="Your notice choices"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <Stack gap="sm">
        {ADDRESSES.map(({ field, ...words }) => (
          <TextInput key={field} {...words} value={addresses[field]} onChange={(event) => edit(setAddresses)({ ...addresses, [field]: event.currentTarget.value })} error={action.fieldErrors[field]} />
        ))}
        <Table aria-label="Kinds of notice and their channels" withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Kind of notice</Table.Th>
              {NOTICE_CHANNELS.map((channel) => (
                <Table.Th key={channel}>{CHANNEL_WORDS[channel]}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {kinds.map((kind) => (
              <Table.Tr key={kind}>
                <Table.Td>{NOTICE_KIND_LABELS[kind]}</Table.Td>
                {NOTICE_CHANNELS.map((channel) => (
                  <Table.Td key={channel}>
                    <Checkbox
                      aria-label={`${NOTICE_KIND_LABELS[kind]}: by ${CHANNEL_WORDS[channel].toLowerCase()}`}
                      data-choice={choiceKey(kind, channel)}
                      checked={chosen.has(choiceKey(kind, channel))}
                      onChange={(event) => toggle(choiceKey(kind, channel), event.currentTarget.checked)}
                    />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <FormError action={action} shown={ADDRESSES.map((a) => a.field)} mt={0} />
        <div>
          <Button type="submit" loading={action.busy}>
            Save my choices
          </Button>
        </div>
      </Stack>
    </form>
  );
}
