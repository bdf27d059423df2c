// Electron transport of the contract: one ipcMain.handle per invoke channel, pushes sent to the
// window. Handlers check the sender before dispatching.
import type { IpcMain, WebContents } from 'electron';
import { invokeChannels } from '../../shared/contract';
import { isTrustedSender } from '../security';
import type { EventBus } from '../services/event-bus';
import type { Dispatch } from './dispatcher';

export function registerContractIpc(ipcMain: IpcMain, dispatch: Dispatch, appUrl: string): () => void {
  for (const channel of invokeChannels) {
    ipcMain.handle(channel, (event, input: unknown) => {
      if (!isTrustedSender(event, appUrl)) {
        return { ok: false, error: { code: 'unavailable', message: 'Refused: the caller is not the Paydesk window.' } };
      }
      return dispatch(channel, input);
    });
  }
  return () => {
    for (const channel of invokeChannels) ipcMain.removeHandler(channel);
  };
}

export function forwardPushes(events: EventBus, target: () => WebContents | null): () => void {
  return events.subscribe((channel, payload) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(channel, payload);
  });
}
