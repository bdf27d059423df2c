// Main → renderer pushes. Transports (Electron webContents, web-mode SSE) subscribe to this bus;
// services publish to it without knowing who listens.
import type { PushChannel, PushPayload } from '../../shared/contract';

export type PushListener = <P extends PushChannel>(channel: P, payload: PushPayload<P>) => void;

export class EventBus {
  private readonly listeners = new Set<PushListener>();

  publish<P extends PushChannel>(channel: P, payload: PushPayload<P>): void {
    for (const listener of this.listeners) {
      listener(channel, payload);
    }
  }

  subscribe(listener: PushListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
