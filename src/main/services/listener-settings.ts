// The notification listener's address as a user setting: read it, change it (the listener is
// rebound at once and the address kept for the next start), audit the change and tell the
// renderer, whose profiles' notification URLs follow.
import { isLoopbackHost, type ListenerState, type ListenerUpdate } from '../../shared/contract';
import type { AuditLog } from '../ledger/repositories/audit-log';
import type { MovableListener } from '../listener/movable';
import { ServiceError } from './errors';
import type { EventBus } from './event-bus';
import type { SettingsService } from './settings-service';

export interface ListenerSettingsDeps {
  listener: MovableListener;
  settings: SettingsService;
  audit: AuditLog;
  events: EventBus;
  /** Publishes the profiles again: their notification URLs contain the listener's address. */
  onMoved: () => Promise<void>;
}

export class ListenerSettings {
  constructor(private readonly deps: ListenerSettingsDeps) {}

  state(): ListenerState {
    const { host, port } = this.deps.listener;
    return { host, port, origin: this.deps.listener.url('').replace(/\/n\/$/, ''), loopback: isLoopbackHost(host) };
  }

  async update(input: ListenerUpdate): Promise<ListenerState> {
    const { listener, settings, audit, events } = this.deps;
    const before = { host: listener.host, port: listener.port };
    const wanted = { host: input.host ?? before.host, port: input.port ?? before.port };
    try {
      await listener.move(wanted);
    } catch (error) {
      throw bindError(error, wanted);
    }
    await settings.rememberListenerAddress(listener.host, listener.port);
    const state = this.state();
    if (state.host !== before.host || state.port !== before.port) {
      await audit.append({ actor: 'user', action: 'settings.listener', profileId: null, subject: `${state.host}:${state.port}`, details: { from: before, to: { host: state.host, port: state.port } } });
      events.publish('settings:listener-changed', state);
      await this.deps.onMoved();
    }
    return state;
  }
}

/** A bind failure as a message that names the field and the fix. */
function bindError(error: unknown, wanted: { host: string; port: number }): ServiceError {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EADDRINUSE':
      return new ServiceError('invalid_input', `Port ${wanted.port} is already in use on ${wanted.host}; the listener stays where it was.`, {
        port: `Port ${wanted.port} is taken by another program: choose another port, or 0 for any free one.`,
      });
    case 'EACCES':
      return new ServiceError('invalid_input', `Paydesk may not listen on port ${wanted.port}; the listener stays where it was.`, {
        port: 'Ports below 1024 need administrator rights: choose 1024–65535, or 0 for any free one.',
      });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAFNOSUPPORT':
      return new ServiceError('invalid_input', `This machine has no address ${wanted.host}; the listener stays where it was.`, {
        host: 'Not an address of this machine: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).',
      });
    default:
      return new ServiceError('internal', `The listener could not move to ${wanted.host}:${wanted.port} (${(error as Error).message}); it stays where it was.`);
  }
}
