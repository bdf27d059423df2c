// The notification_link / notificationUrl / tokenization_notification_url Paydesk sends for a
// profile: its public URL when one is configured (a real deployment behind a reverse proxy that
// forwards /n/… to the listener), else the listener's own loopback address.
import type { Profile } from '../ledger/repositories/profiles';
import { LISTENER_PATH_PREFIX, type Listener } from './server';

export function notificationLink(profile: Profile, listener: Pick<Listener, 'url'>): string {
  if (!profile.notificationPublicUrl) return listener.url(profile.listenerPathSecret);
  const base = profile.notificationPublicUrl.endsWith('/') ? profile.notificationPublicUrl : `${profile.notificationPublicUrl}/`;
  return new URL(`${LISTENER_PATH_PREFIX.slice(1)}${profile.listenerPathSecret}`, base).toString();
}
