import { useCallback, useEffect, useState } from 'react';
import { isScreenId, type ScreenId } from './screens';

function screenFromHash(): ScreenId {
  const id = window.location.hash.replace(/^#\/?/, '');
  return isScreenId(id) ? id : 'payins';
}

/** The current screen lives in the URL hash, so a reload keeps the user where they were. */
export function useHashScreen(): [ScreenId, (screen: ScreenId) => void] {
  const [screen, setScreen] = useState<ScreenId>(screenFromHash);
  useEffect(() => {
    const onHashChange = () => setScreen(screenFromHash());
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  const navigate = useCallback((next: ScreenId) => {
    window.location.hash = `/${next}`;
  }, []);
  return [screen, navigate];
}
