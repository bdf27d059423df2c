// Main → renderer pushes. Transports (Electron webContents, web-mode SSE) subscribe to this bus;
// services publish to it without knowing who listens.
import type { PushChannel, PushPayload } from '../../shared/contract';

/**
 * Who a push is for. None: everyone who sees this Paydesk. On a team server a push can be for one
 * person's sessions only (their own settings, their session): `personId`, or one session.
 */
export interface PushAudience {
  personId?: string;
  sessionId?: string;
}

export type PushListener = <P extends PushChannel>(channel: P, payload: PushPayload<P>, audience?: PushAudience) => void;

export class EventBus {
  private readonly listeners = new Set<PushListener>();

  publish<P extends PushChannel>(channel: P, payload: PushPayload<P>, audience?: PushAudience): void {
    for (const listener of this.listeners) {
      listener(channel, payload, audience);
    }
  }

  subscribe(listener: PushListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
