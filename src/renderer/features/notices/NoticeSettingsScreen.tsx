// Settings → Notices (docs/notifications.md): what reaches the person outside the app
// and where (a team server's), each channel's state (admins of a team server), and the watches'
// thresholds (admins change them, others read them). A desk has neither e-mail nor chat: it says
// so and shows no control for them.
import { Anchor, Card, Loader, Stack, Text, Title } from '@mantine/core';
import { useAccess } from '../../stores/access';
import { useApp } from '../../stores/context';
import { routeHash } from '../../shell/use-route';
import { NoticeChannelsSection } from './NoticeChannelsSection';
import { NoticeChoicesSection } from './NoticeChoicesSection';
import { NoticeThresholdsSection } from './NoticeThresholdsSection';

export function NoticeSettingsScreen() {
  const session = useApp((state) => state.team);
  const { can } = useAccess();
  if (!session) return <Loader aria-label="Loading the notice settings" />;
  const team = session.mode !== 'desk' && session.person !== null;
  return (
    <Stack>
      <div>
        <Anchor href={routeHash('settings')} size="sm">
          Settings
        </Anchor>
        <Title order={2}>Notices</Title>
      </div>
      {team ? (
        <NoticeChoicesSection />
      ) : (
        <Card withBorder data-testid="notice-desk-channels">
          <Title order={3} mb="xs">
            Where notices reach you
          </Title>
          <Text size="sm">
            On this desk, notices are shown in the app, in the inbox under the bell in the header, and as desktop notifications (in a browser, once you allow them
            from the inbox). E-mail and chat are a team server&apos;s: there each person chooses which notices reach them by e-mail or in chat.
          </Text>
        </Card>
      )}
      {team && can('notices:channels') && <NoticeChannelsSection />}
      <NoticeThresholdsSection team={team} />
    </Stack>
  );
}
