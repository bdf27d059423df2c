// Whether the gateway can post a profile's notifications to the URL Paydesk sends it. A sandbox or
// live gateway is another machine: a loopback address (the listener's own, when no public URL is
// set) names the gateway's machine, not ours, so nothing it posts there can arrive. The local
// emulator runs on this machine, so loopback is right for it. Main records the answer on every
// transaction it sends (and polls their status instead); the profile form, the payout review and
// the playground show the same warning.
import type { EnvironmentKind } from './contract/app';
import { isLoopbackHost } from './contract/listener';

export interface NotificationReach {
  /** The notification URL sent to the gateway. */
  url: string;
  reachable: boolean;
  /** Why not and what to do; null when reachable. */
  warning: string | null;
}

/** Loopback or "any address" hosts: meaningful on this machine only. */
function hostOnlyHere(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return isLoopbackHost(host) || host === '0.0.0.0' || host === '::';
}

export function notificationReach(environment: EnvironmentKind, url: string): NotificationReach {
  if (environment === 'local' || !hostOnlyHere(url)) return { url, reachable: true, warning: null };
  const gateway = environment === 'live' ? 'live gateway' : 'provider sandbox';
  return {
    url,
    reachable: false,
    warning:
      `The ${gateway} would post notifications to ${url}, a loopback address that only this machine answers: none can arrive. ` +
      'Set the profile’s public URL (Settings → Profiles), the address where the gateway reaches this machine’s notification listener (Settings → Notification listener), e.g. through a reverse proxy. ' +
      'Until then Paydesk reads the status of each transaction from the gateway instead, until it is final.',
  };
}
