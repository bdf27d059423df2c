import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './focus.css';
import { MantineProvider } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { TeamSession } from '../shared/contract';
import { ContractError, createApiClient, isTeamPage, pickBridge } from './api/client';
import { App } from './App';
import { SignIn } from './features/team/SignIn';
import { prefetchScreen } from './shell/prefetch';
import { parseRoute } from './shell/use-route';
import { createStores, StoresProvider } from './stores/context';
import { colorSchemeManager, cssVariablesResolver, theme } from './theme';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
const render = (node: ReactNode) => createRoot(root).render(<StrictMode>{node}</StrictMode>);

function SignInPage() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} forceColorScheme={useColorScheme()}>
      <SignIn />
    </MantineProvider>
  );
}

/** On a team server's page: who is signed in, or null (the sign-in form is shown instead of the app). */
async function signedIn(api: ReturnType<typeof createApiClient>): Promise<TeamSession | null> {
  try {
    const session = await api.invoke('team:get-session');
    return session.person ? session : null;
  } catch (error) {
    if (error instanceof ContractError && error.code === 'unauthorized') return null;
    throw error;
  }
}

async function boot(): Promise<void> {
  const team = isTeamPage();
  // A team page whose session ends (revoked, expired) shows the sign-in form again.
  let established = false;
  const api = createApiClient(pickBridge(() => established && window.location.reload()));
  const session = team ? await signedIn(api) : null;
  if (team && !session) {
    render(<SignInPage />);
    return;
  }
  established = true;
  const stores = createStores(api, session);
  // The first screen's data, then the shell's facts (the app, its settings, the session), are asked
  // for together, before React renders: the frame and the rows wait for one round trip, not two.
  prefetchScreen(stores, parseRoute(window.location.hash));
  void stores.app.getState().load();
  render(
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>,
  );
}

void boot();
