import { Alert, AppShell, Burger, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useApp } from '../stores/context';
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
  const screen = screens.find((candidate) => candidate.id === current) ?? screens[0];

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
            <GlobalSearch />
            <ThemeToggle />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        {screens.map((item) => (
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
        {keychain && !keychain.available && (
          <Alert color="orange" title="Keychain not available" mb="md" data-testid="keychain-warning">
            {keychain.message}
          </Alert>
        )}
        <CurrentScreen route={route} label={screen.label} description={screen.description} />
      </AppShell.Main>
    </AppShell>
  );
}
