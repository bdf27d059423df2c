import { useCallback, useEffect, useState } from 'react';
import { isScreenId, type ScreenId } from './screens';

/**
 * The route lives in the URL hash, so a reload keeps the user where they were and links can be
 * shared between screens:  #/<screen>[/<id>][?key=value&…]
 *   #/payins?status=302          the pay-ins list filtered (e.g. from the code explorer)
 *   #/payins/42                  pay-in 42 (ledger row id) opened
 */
export interface Route {
  screen: ScreenId;
  id: string | null;
  params: Record<string, string>;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [screen = '', id] = path.split('/');
  return {
    screen: isScreenId(screen) ? screen : 'payins',
    id: id ? decodeURIComponent(id) : null,
    params: Object.fromEntries(new URLSearchParams(query)),
  };
}

export function routeHash(screen: ScreenId, options: { id?: string | number | null; params?: Record<string, string> } = {}): string {
  const id = options.id === undefined || options.id === null ? '' : `/${encodeURIComponent(String(options.id))}`;
  const query = options.params && Object.keys(options.params).length > 0 ? `?${new URLSearchParams(options.params).toString()}` : '';
  return `#/${screen}${id}${query}`;
}

export function navigate(screen: ScreenId, options: { id?: string | number | null; params?: Record<string, string> } = {}): void {
  window.location.hash = routeHash(screen, options);
}

export function useRoute(): [Route, typeof navigate] {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHashChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  return [route, useCallback(navigate, [])];
}
