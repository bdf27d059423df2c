import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient, pickBridge } from './api/client';
import { App } from './App';
import { prefetchScreen } from './shell/prefetch';
import { parseRoute } from './shell/use-route';
import { createStores, StoresProvider } from './stores/context';

const stores = createStores(createApiClient(pickBridge()));
prefetchScreen(stores, parseRoute(window.location.hash));
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

createRoot(root).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>
  </StrictMode>,
);
