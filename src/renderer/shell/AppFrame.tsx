import { Alert, AppShell, Burger, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useAccess } from '../stores/access';
import { useApp } from '../stores/context';
import { NoticeBell } from './NoticeBell';
import { PersonMenu } from './PersonMenu';
import { EnvironmentBadge } from './EnvironmentBadge';
import { screens } from './screens';
import { ThemeToggle } from './ThemeToggle';
import { GlobalSearch } from '../features/search/GlobalSearch';
import { CurrentScreen } from './CurrentScreen';
import { useRoute } from './use-route';

export function AppFrame() {
  const [opened, { toggle }] = useDisclosure();
  const [route, navigate] = useRoute();
  const current = route.screen;
  const loadError = useApp((state) => state.loadError);
  const keychain = useApp((state) => state.info?.keychain);
  const live = useApp((state) => state.info?.environment.kind === 'live');
  const { can } = useAccess();
  // On a team server a screen the person's role cannot open is not offered.
  const signedIn = useApp((state) => state.team?.person !== null && state.team?.person !== undefined);
  const offered = screens.filter((item) => can(item.opens) && (!('teamOnly' in item) || signedIn));
  const screen = offered.find((candidate) => candidate.id === current) ?? offered[0] ?? screens[0];

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header
        data-live={live || undefined}
        style={live ? { borderBottom: '4px solid var(--mantine-color-red-filled)', background: 'var(--mantine-color-red-light)' } : undefined}
      >
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={3}>Paydesk</Title>
            <EnvironmentBadge />
          </Group>
          <Group gap="sm">
            <PersonMenu />
            {can('notices:list') && <NoticeBell />}
            {can('search:lookup') && <GlobalSearch />}
            <ThemeToggle />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        {offered.map((item) => (
          <NavLink
            key={item.id}
            href={`#/${item.id}`}
            label={item.label}
            active={item.id === current}
            onClick={(event) => {
              event.preventDefault();
              navigate(item.id);
            }}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        {loadError && (
          <Alert color="red" title="Paydesk's main process did not answer" mb="md">
            {loadError}
          </Alert>
        )}
        {keychain && keychain.state !== 'available' && (
          <Alert color={keychain.state === 'locked' ? 'red' : 'orange'} title={keychain.state === 'locked' ? 'Keychain locked' : 'Keychain not available'} mb="md" data-testid="keychain-warning">
            {keychain.message}
          </Alert>
        )}
        <CurrentScreen route={screen.id === current ? route : { ...route, screen: screen.id }} label={screen.label} description={screen.description} />
      </AppShell.Main>
    </AppShell>
  );
}
