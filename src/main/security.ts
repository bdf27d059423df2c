// Electron hardening, written as data and small pure functions so it can be unit-tested
// without Electron: window options, which URLs the app may load, which IPC senders are ours.
import type { BrowserWindowConstructorOptions, IpcMainInvokeEvent, Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from './security-policy';

export { CONTENT_SECURITY_POLICY };

export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Paydesk',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      spellcheck: false,
      navigateOnDragDrop: false,
    },
  };
}

/** The app's own pages: the built index.html (file://) or, in development only, the Vite dev server. */
export function isAppUrl(candidate: string, appUrl: string): boolean {
  let target: URL;
  let app: URL;
  try {
    target = new URL(candidate);
    app = new URL(appUrl);
  } catch {
    return false;
  }
  if (app.protocol === 'file:') {
    return target.protocol === 'file:' && target.pathname === app.pathname;
  }
  return target.origin === app.origin;
}

/** In-app navigation never leaves the single page; everything else is refused. */
export function shouldBlockNavigation(candidate: string, appUrl: string): boolean {
  return !isAppUrl(candidate, appUrl);
}

/** Links the user may open in the system browser (e.g. an emulator's hosted pay-in page). */
export function isExternalBrowsable(candidate: string): boolean {
  try {
    const url = new URL(candidate);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, appUrl: string): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  // Only the top-level frame of our own page may call main.
  return frame.parent === null && isAppUrl(frame.url, appUrl);
}

export interface HardeningDeps {
  openExternal: (url: string) => void;
}

export function hardenWebContents(contents: WebContents, appUrl: string, deps: HardeningDeps): void {
  contents.on('will-navigate', (event, url) => {
    if (shouldBlockNavigation(url, appUrl)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (shouldBlockNavigation(url, appUrl)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalBrowsable(url)) deps.openExternal(url);
    return { action: 'deny' };
  });
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
        'X-Content-Type-Options': ['nosniff'],
      },
    });
  });
}
