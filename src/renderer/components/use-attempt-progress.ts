// Follows one create call through main's 'attempts:progress-changed' pushes, after catching up
// with its latest report ('attempts:progress': a page opened or reloaded mid-send). The call is
// recognised by its profile, kind and reference (request_id / merchantReference): a screen that
// sends chooses the reference before sending, so another window's create never shows there.
import { useEffect, useState } from 'react';
import type { AttemptProgressView } from '../../shared/contract';
import { useApi } from '../stores/context';

export interface ProgressMatch {
  profileId: string;
  kind: AttemptProgressView['kind'];
  reference: string;
}

export interface FollowedProgress {
  /** The latest report, null until the first one arrives. */
  progress: AttemptProgressView | null;
  /** How long ago it arrived, by this page's clock; moves every half second while the call runs. */
  sinceReportMs: number;
}

const TICK_MS = 500;

export function useAttemptProgress(match: ProgressMatch | null): FollowedProgress {
  const api = useApi();
  const [latest, setLatest] = useState<{ progress: AttemptProgressView; receivedAt: number } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const { profileId, kind, reference } = match ?? {};

  useEffect(() => {
    setLatest(null);
    if (profileId === undefined || kind === undefined || reference === undefined) return undefined;
    let pushed = false;
    let current = true;
    const take = (progress: AttemptProgressView) => {
      setLatest({ progress, receivedAt: Date.now() });
      setNow(Date.now());
    };
    const stop = api.on('attempts:progress-changed', (progress) => {
      if (progress.profileId !== profileId || progress.kind !== kind || progress.reference !== reference) return;
      pushed = true;
      take(progress);
    });
    // Opened (or reloaded) mid-send: catch up with the latest report, unless a push has already said more.
    api
      .invoke('attempts:progress', { profileId, kind, reference })
      .then((progress) => {
        if (current && !pushed && progress !== null) take(progress);
      })
      .catch(() => undefined);
    return () => {
      current = false;
      stop();
    };
  }, [api, profileId, kind, reference]);

  const running = profileId !== undefined && latest?.progress.phase !== 'finished';
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [running]);

  return { progress: latest?.progress ?? null, sinceReportMs: latest ? Math.max(0, now - latest.receivedAt) : 0 };
}

/**
 * The reference a create goes out with: the one typed, else a fresh one chosen here rather than by
 * main, so the screen knows which call's progress to follow.
 */
export function referenceToSend(typed: string | undefined, prefix: string): string {
  return typed !== undefined && typed.trim() !== '' ? typed : `${prefix}-${crypto.randomUUID()}`;
}
