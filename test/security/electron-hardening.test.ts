// The Electron entry (src/main/index.ts) runs here unchanged against a recording
// stand-in for the electron module (the Electron binary is not installed in CI). Every window and
// every webContents the app creates, and every session and IPC registration it makes, is recorded
// and checked: sandbox, context isolation, no Node integration anywhere, web security on, the CSP
// on every response, navigation and window.open denied, every permission denied, IPC answered
// only for the top frame of our own page, pushes sent only to our window, no generic channel.
// A webContents Electron creates later (a devtools view, a refused popup) is hardened the same
// way: the test announces one through 'web-contents-created' as Electron would.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invokeChannels } from '../../src/shared/contract';
import { CONTENT_SECURITY_POLICY } from '../../src/main/security-policy';
import { tempDir } from '../helpers/temp-dir';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  class FakeWebContents {
    static next = 1;
    readonly id = FakeWebContents.next++;
    readonly handlers = new Map<string, Handler[]>();
    windowOpenHandler: Handler | undefined;
    readonly sent: [string, unknown][] = [];
    on(name: string, handler: Handler) {
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
      return this;
    }
    setWindowOpenHandler(handler: Handler) {
      this.windowOpenHandler = handler;
    }
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
    }
    isDestroyed() {
      return false;
    }
  }
  const recorder = {
    calls: [] as string[],
    windows: [] as { options: Record<string, unknown>; webContents: FakeWebContents; loaded: string[] }[],
    contents: [] as FakeWebContents[],
    appHandlers: new Map<string, Handler[]>(),
    ipcHandlers: new Map<string, Handler>(),
    ipcOther: [] as string[],
    session: { permissionRequest: undefined as Handler | undefined, permissionCheck: undefined as Handler | undefined, headers: undefined as Handler | undefined, other: [] as string[] },
    external: [] as string[],
    exits: [] as number[],
    errors: [] as string[],
  };
  const announce = (contents: FakeWebContents) => {
    recorder.contents.push(contents);
    for (const handler of recorder.appHandlers.get('web-contents-created') ?? []) handler({}, contents);
  };
  class FakeBrowserWindow {
    readonly webContents = new FakeWebContents();
    readonly loaded: string[] = [];
    constructor(readonly options: Record<string, unknown>) {
      recorder.calls.push('new BrowserWindow');
      recorder.windows.push(this);
      announce(this.webContents);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      recorder.calls.push('loadURL');
      return Promise.resolve();
    }
    once() {
      return this;
    }
    on() {
      return this;
    }
    show() {}
  }
  const app = {
    isPackaged: true,
    enableSandbox: () => recorder.calls.push('enableSandbox'),
    whenReady: () => {
      recorder.calls.push('whenReady');
      return Promise.resolve();
    },
    on: (name: string, handler: Handler) => {
      recorder.appHandlers.set(name, [...(recorder.appHandlers.get(name) ?? []), handler]);
    },
    exit: (code: number) => recorder.exits.push(code),
    quit: () => recorder.calls.push('quit'),
  };
  const defaultSession = {
    setPermissionRequestHandler: (handler: Handler) => (recorder.session.permissionRequest = handler),
    setPermissionCheckHandler: (handler: Handler) => (recorder.session.permissionCheck = handler),
    webRequest: { onHeadersReceived: (handler: Handler) => (recorder.session.headers = handler) },
    setProxy: () => recorder.session.other.push('setProxy'),
  };
  const ipcMain = {
    handle: (channel: string, handler: Handler) => recorder.ipcHandlers.set(channel, handler),
    handleOnce: (channel: string) => recorder.ipcOther.push(`handleOnce ${channel}`),
    on: (channel: string) => recorder.ipcOther.push(`on ${channel}`),
    once: (channel: string) => recorder.ipcOther.push(`once ${channel}`),
    removeHandler: (channel: string) => recorder.ipcHandlers.delete(channel),
  };
  const electron = {
    app,
    BrowserWindow: FakeBrowserWindow,
    session: { defaultSession },
    ipcMain,
    shell: { openExternal: (url: string) => recorder.external.push(url) },
    dialog: { showErrorBox: (title: string, message: string) => recorder.errors.push(`${title}: ${message}`) },
  };
  return { recorder, electron, announce, FakeWebContents };
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));

const temp = tempDir('paydesk-electron-');
const { recorder } = fake;
let appUrl = '';

beforeAll(async () => {
  delete process.env.ELECTRON_RENDERER_URL;
  const argv = process.argv;
  process.argv = [argv[0] as string, 'electron-main', '--', '--data-dir', path.join(temp.dir, 'data')];
  await import('../../src/main/index');
  const deadline = Date.now() + 20_000;
  while (!recorder.calls.includes('loadURL') && recorder.exits.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  process.argv = argv;
  if (recorder.exits.length > 0) throw new Error(`the app exited: ${recorder.exits.join()} ${recorder.errors.join('; ')}`);
  appUrl = recorder.windows[0]?.loaded[0] ?? '';
}, 30_000);

afterAll(async () => {
  // Closing the last window closes the core (ledger, emulator, listener) and quits.
  for (const handler of recorder.appHandlers.get('window-all-closed') ?? []) handler();
  const deadline = Date.now() + 10_000;
  while (!recorder.calls.includes('quit') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  temp.cleanup();
});

const event = () => {
  const e = { prevented: false, preventDefault: () => (e.prevented = true) };
  return e;
};

/** What every webContents must refuse, checked on the handlers it actually registered. */
function checkWebContents(contents: InstanceType<typeof fake.FakeWebContents>): void {
  const where = `webContents ${contents.id}`;
  for (const name of ['will-navigate', 'will-redirect']) {
    const handlers = contents.handlers.get(name) ?? [];
    expect(handlers.length, `${where}: ${name} handler`).toBeGreaterThan(0);
    for (const target of ['https://evil.example/', 'http://127.0.0.1:1/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<script>1</script>', 'about:blank']) {
      const e = event();
      for (const handler of handlers) handler(e, target);
      expect(e.prevented, `${where}: ${name} to ${target}`).toBe(true);
    }
    const stay = event();
    for (const handler of handlers) handler(stay, `${appUrl}#/payouts`);
    expect(stay.prevented, `${where}: ${name} within the app`).toBe(false);
  }
  const webview = event();
  for (const handler of contents.handlers.get('will-attach-webview') ?? []) handler(webview, {}, {});
  expect(webview.prevented, `${where}: webview refused`).toBe(true);
  expect(contents.windowOpenHandler, `${where}: window-open handler`).toBeTypeOf('function');
  const opened = recorder.external.length;
  for (const url of ['https://pay.example/hosted/1', 'http://127.0.0.1:9/pay/1', 'file:///etc/passwd', 'javascript:alert(1)', appUrl, 'about:blank']) {
    expect(contents.windowOpenHandler?.({ url, frameName: '', features: '', disposition: 'new-window' }), `${where}: window.open(${url})`).toEqual({ action: 'deny' });
  }
  // Only web links leave, and only to the system browser.
  expect(recorder.external.slice(opened)).toEqual(['https://pay.example/hosted/1', 'http://127.0.0.1:9/pay/1']);
}

describe('Electron hardening of everything the app creates', () => {
  it('enables the sandbox for every renderer before the app is ready, and loads only its own file', () => {
    expect(recorder.calls.indexOf('enableSandbox')).toBeGreaterThanOrEqual(0);
    expect(recorder.calls.indexOf('enableSandbox')).toBeLessThan(recorder.calls.indexOf('whenReady'));
    expect(recorder.windows.length).toBeGreaterThan(0);
    for (const window of recorder.windows) for (const url of window.loaded) expect(url).toMatch(/^file:\/\/\/.*\/renderer\/index\.html$/);
  });

  it('creates every window isolated, sandboxed, without Node integration and with web security on', () => {
    for (const window of recorder.windows) {
      const prefs = window.options.webPreferences as Record<string, unknown>;
      expect(prefs).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        experimentalFeatures: false,
      });
      // Nothing that switches a protection off, whatever else is added later.
      for (const [key, value] of Object.entries(prefs)) {
        if (/nodeIntegration|enableRemoteModule|allowRunningInsecureContent|experimentalFeatures|webviewTag|enableBlinkFeatures/.test(key)) expect(value, key).toBeFalsy();
        if (/contextIsolation|sandbox|webSecurity/.test(key)) expect(value, key).toBe(true);
      }
      expect(String(prefs.preload)).toMatch(/preload[/\\]index\.cjs$/);
      expect(window.options.show).toBe(false);
    }
  });

  it('hardens every webContents: no navigation away, no webview, window.open denied', () => {
    // One that Electron creates later (a devtools view, a popup it then refuses) goes through the same hook.
    fake.announce(new fake.FakeWebContents());
    expect(recorder.contents.length).toBeGreaterThanOrEqual(2);
    for (const contents of recorder.contents) checkWebContents(contents);
  });

  it('denies every permission request and check, and puts the CSP on every response', () => {
    const { permissionRequest, permissionCheck, headers } = recorder.session;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'midi', 'openExternal', 'hid', 'serial', 'usb', 'fullscreen', 'pointerLock', 'unknown']) {
      const granted: boolean[] = [];
      permissionRequest?.(recorder.contents[0], permission, (g: boolean) => granted.push(g), {});
      expect(granted, permission).toEqual([false]);
      expect(permissionCheck?.(recorder.contents[0], permission, 'https://evil.example', {}), permission).toBe(false);
    }
    for (const responseHeaders of [{}, { 'Content-Security-Policy': ["default-src *; script-src 'unsafe-eval'"] }]) {
      const results: { responseHeaders: Record<string, string[]> }[] = [];
      headers?.({ url: appUrl, responseHeaders }, (r: { responseHeaders: Record<string, string[]> }) => results.push(r));
      expect(results[0]?.responseHeaders['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
      expect(results[0]?.responseHeaders['X-Content-Type-Options']).toEqual(['nosniff']);
    }
    const csp = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|https?:/);
  });

  it('registers exactly one IPC handler per contract entry and nothing generic', () => {
    expect([...recorder.ipcHandlers.keys()].sort()).toEqual([...invokeChannels].sort());
    expect(recorder.ipcOther).toEqual([]);
  });

  it('answers IPC only for the top frame of its own page', async () => {
    const invoke = (channel: string, senderFrame: unknown, input?: unknown) => recorder.ipcHandlers.get(channel)?.({ senderFrame, sender: recorder.contents[0] }, input) as Promise<{ ok: boolean; value?: unknown; error?: { code: string } }>;
    const top = { url: appUrl, parent: null };
    const foreign = [
      null,
      { url: 'https://evil.example/', parent: null },
      { url: appUrl, parent: top },
      { url: 'file:///tmp/evil.html', parent: null },
      { url: appUrl.replace('index.html', 'other.html'), parent: null },
    ];
    for (const frame of foreign) {
      const refused = await invoke('settings:update', frame, { theme: 'dark' });
      expect(refused, JSON.stringify(frame)).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    }
    expect(await invoke('settings:get', top)).toMatchObject({ ok: true, value: { theme: 'auto', reconciliationPendingMinutes: 60 } }); // none of the refused updates landed
    expect(await invoke('app:get-info', top)).toMatchObject({ ok: true, value: { mode: 'electron' } });
  });

  it('sends pushes to its own window only', async () => {
    const window = recorder.windows[0];
    const others = recorder.contents.filter((c) => c !== window?.webContents);
    await recorder.ipcHandlers.get('settings:update')?.({ senderFrame: { url: appUrl, parent: null } }, { theme: 'light' });
    expect(window?.webContents.sent.map(([channel]) => channel)).toContain('settings:settings-changed');
    for (const contents of others) expect(contents.sent).toEqual([]);
  });
});
