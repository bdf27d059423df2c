import { beforeEach, describe, expect, it, vi } from 'vitest';
import { invokeChannels, pushChannels } from '../../../src/shared/contract';

const exposed: Record<string, unknown> = {};
const ipcRenderer = { invoke: vi.fn(async () => ({ ok: true, value: 1 })), on: vi.fn(), removeListener: vi.fn() };

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) },
  ipcRenderer,
}));

describe('preload bridge', () => {
  beforeEach(async () => {
    vi.resetModules();
    await import('../../../src/preload/index');
  });

  it('exposes exactly one invoke method per contract entry and one subscription per push', () => {
    const bridge = exposed.paydesk as { invoke: Record<string, unknown>; on: Record<string, unknown> };
    expect(Object.keys(exposed)).toEqual(['paydesk']);
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on']);
    expect(Object.keys(bridge.invoke).sort()).toEqual([...invokeChannels].sort());
    expect(Object.keys(bridge.on).sort()).toEqual([...pushChannels].sort());
    expect(Object.isFrozen(bridge.invoke)).toBe(true);
  });

  it('sends each method on its own channel only', async () => {
    const bridge = exposed.paydesk as { invoke: Record<string, (input: unknown) => Promise<unknown>> };
    await bridge.invoke['settings:update']?.({ theme: 'dark' });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('settings:update', { theme: 'dark' });
  });

  it('subscribes and unsubscribes a push listener without exposing the IPC event', () => {
    const bridge = exposed.paydesk as { on: Record<string, (listener: (payload: unknown) => void) => () => void> };
    const listener = vi.fn();
    const unsubscribe = bridge.on['settings:settings-changed']?.(listener);
    const relay = ipcRenderer.on.mock.calls.at(-1)?.[1] as (event: unknown, payload: unknown) => void;
    relay({ sender: 'ipc internals' }, { theme: 'light' });
    expect(listener).toHaveBeenCalledWith({ theme: 'light' });
    unsubscribe?.();
    expect(ipcRenderer.removeListener).toHaveBeenCalledWith('settings:settings-changed', relay);
  });
});
