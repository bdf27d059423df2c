// The only bridge between the sandboxed renderer and main: exactly one method per contract entry.
// Bundled into one CommonJS file (a sandboxed preload cannot require packages).
// It never takes a channel name from the page, so a compromised renderer reaches nothing else.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { invokeChannels, pushChannels } from '../shared/contract';

const invoke = Object.fromEntries(invokeChannels.map((channel) => [channel, (input: unknown) => ipcRenderer.invoke(channel, input)]));

const on = Object.fromEntries(
  pushChannels.map((channel) => [
    channel,
    (listener: (payload: unknown) => void) => {
      const relay = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
      ipcRenderer.on(channel, relay);
      return () => {
        ipcRenderer.removeListener(channel, relay);
      };
    },
  ]),
);

contextBridge.exposeInMainWorld('paydesk', Object.freeze({ invoke: Object.freeze(invoke), on: Object.freeze(on) }));
