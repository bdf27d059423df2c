import { describe, expect, it, vi } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  hardenSession,
  hardenWebContents,
  isTrustedSender,
  mainWindowOptions,
  shouldBlockNavigation,
} from '../../../src/main/security';

const appUrl = 'file:///opt/paydesk/out/renderer/index.html';

describe('window options', () => {
  const prefs = mainWindowOptions('/opt/paydesk/out/preload/index.cjs').webPreferences ?? {};

  it('isolates and sandboxes the renderer with no Node integration', () => {
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(prefs.preload).toBe('/opt/paydesk/out/preload/index.cjs');
  });
});

describe('content security policy', () => {
  it('allows only our own scripts, no eval, no remote content, no framing', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
  });
});

describe('navigation', () => {
  it('stays on the app page and refuses everything else', () => {
    expect(shouldBlockNavigation(`${appUrl}#/payouts`, appUrl)).toBe(false);
    expect(shouldBlockNavigation('https://evil.example/', appUrl)).toBe(true);
    expect(shouldBlockNavigation('file:///etc/passwd', appUrl)).toBe(true);
    expect(shouldBlockNavigation('not a url', appUrl)).toBe(true);
  });

  it('with a dev server, allows only that origin', () => {
    expect(shouldBlockNavigation('http://localhost:5173/x', 'http://localhost:5173/')).toBe(false);
    expect(shouldBlockNavigation('http://localhost:5174/', 'http://localhost:5173/')).toBe(true);
  });
});

describe('IPC sender check', () => {
  it('trusts only the top frame of our own page', () => {
    expect(isTrustedSender({ senderFrame: { url: appUrl, parent: null } } as never, appUrl)).toBe(true);
    expect(isTrustedSender({ senderFrame: { url: 'https://evil.example/', parent: null } } as never, appUrl)).toBe(false);
    expect(isTrustedSender({ senderFrame: { url: appUrl, parent: {} } } as never, appUrl)).toBe(false);
    expect(isTrustedSender({ senderFrame: null } as never, appUrl)).toBe(false);
  });
});

describe('webContents hardening', () => {
  function fakeContents() {
    const handlers = new Map<string, (event: { preventDefault: () => void }, url?: string) => void>();
    let windowOpen: ((details: { url: string }) => { action: string }) | undefined;
    const contents = {
      on: (name: string, handler: (event: { preventDefault: () => void }, url?: string) => void) => handlers.set(name, handler),
      setWindowOpenHandler: (handler: typeof windowOpen) => {
        windowOpen = handler;
      },
    };
    return { contents, handlers, windowOpen: () => windowOpen };
  }

  it('denies navigation away, webviews and new windows; only http(s) links go to the system browser', () => {
    const fake = fakeContents();
    const openExternal = vi.fn();
    hardenWebContents(fake.contents as never, appUrl, { openExternal });

    const navigate = { preventDefault: vi.fn() };
    fake.handlers.get('will-navigate')?.(navigate, 'https://evil.example/');
    expect(navigate.preventDefault).toHaveBeenCalled();
    const stay = { preventDefault: vi.fn() };
    fake.handlers.get('will-navigate')?.(stay, `${appUrl}#/codes`);
    expect(stay.preventDefault).not.toHaveBeenCalled();
    const webview = { preventDefault: vi.fn() };
    fake.handlers.get('will-attach-webview')?.(webview);
    expect(webview.preventDefault).toHaveBeenCalled();

    expect(fake.windowOpen()?.({ url: 'https://pay.example/hosted' })).toEqual({ action: 'deny' });
    expect(fake.windowOpen()?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledTimes(1);
    expect(openExternal).toHaveBeenCalledWith('https://pay.example/hosted');
  });

  it('denies every permission request and check, and sets the CSP on responses', () => {
    let requestHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
    let checkHandler: (() => boolean) | undefined;
    let headersHandler: ((details: { responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void) | undefined;
    const session = {
      setPermissionRequestHandler: (h: typeof requestHandler) => (requestHandler = h),
      setPermissionCheckHandler: (h: typeof checkHandler) => (checkHandler = h),
      webRequest: { onHeadersReceived: (h: typeof headersHandler) => (headersHandler = h) },
    };
    hardenSession(session as never);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read']) {
      const callback = vi.fn();
      requestHandler?.(null, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
    }
    expect(checkHandler?.()).toBe(false);
    const done = vi.fn();
    headersHandler?.({ responseHeaders: {} }, done);
    expect(done).toHaveBeenCalledWith({ responseHeaders: expect.objectContaining({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] }) });
  });
});
