import { Alert, Badge, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { NotificationReachAlert } from '../../components/NotificationReachAlert';
import { navigate } from '../../shell/use-route';
import { JwtTools } from './JwtTools';
import { PayinPlayground } from './PayinPlayground';
import { PayoutPlayground } from './PayoutPlayground';
import { TokenizePlayground } from './TokenizePlayground';
import { useActiveProfile } from './use-active-profile';

/** Each tab and what it shows: a tool that works against the active profile. */
const TABS = [
  { value: 'payin', label: 'Pay-in', Tool: PayinPlayground },
  { value: 'payout', label: 'Payout', Tool: PayoutPlayground },
  { value: 'tokenize', label: 'Tokenize & charge', Tool: TokenizePlayground },
  { value: 'jwt', label: 'JWT tools', Tool: JwtTools },
] as const;
type Tab = (typeof TABS)[number]['value'];

const isTab = (value: string | undefined): value is Tab => TABS.some((t) => t.value === value);

/** The developer's sandbox: build, send and follow test requests against the active profile. */
export function PlaygroundScreen({ tab }: { tab?: string }) {
  const { profile, loading, error } = useActiveProfile();
  const current: Tab = isTab(tab) ? tab : 'payin';
  return (
    <Stack>
      <Title order={2}>Sandbox playground</Title>
      {error && <Alert color="red">{error}</Alert>}
      {loading && <Loader aria-label="Loading profiles" />}
      {!loading && !error && !profile && <Alert color="yellow">No active profile: choose one in Settings.</Alert>}
      {profile && (
        <>
          <Group gap="xs" wrap="nowrap" data-testid="playground-profile">
            <Text size="sm" style={{ flexShrink: 0 }}>
              Requests go to
            </Text>
            <Badge variant="light" style={{ flexShrink: 0 }} color={profile.environment === 'live' ? 'red' : profile.environment === 'sandbox' ? 'yellow' : 'teal'}>
              {profile.name}
            </Badge>
            <Text size="sm" c="dimmed" truncate="end" title={`${profile.baseUrl} · notifications at ${profile.notificationUrl}`} style={{ minWidth: 0 }}>
              {profile.baseUrl} · notifications at {profile.notificationUrl}
            </Text>
          </Group>
          {profile.environment === 'live' && (
            <Alert color="red" title="Live profile" data-testid="playground-live">
              Every request sent from here reaches the live gateway and moves real money. Switch to the local emulator or the sandbox in Settings for testing.
            </Alert>
          )}
          <NotificationReachAlert reach={profile.notifications} profileId={profile.id} />
          <Tabs value={current} onChange={(value) => value && navigate('playground', { params: { tab: value } })} keepMounted>
            <Tabs.List>
              {TABS.map((t) => (
                <Tabs.Tab key={t.value} value={t.value}>
                  {t.label}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            {TABS.map(({ value, Tool }) => (
              <Tabs.Panel key={value} value={value} pt="md">
                <Tool key={profile.id} profile={profile} />
              </Tabs.Panel>
            ))}
          </Tabs>
        </>
      )}
    </Stack>
  );
}
