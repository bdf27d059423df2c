// Injected at build time by electron-vite (see electron.vite.config.ts) from package.json.
declare const __PAYDESK_VERSION__: string | undefined;

export const APP_VERSION: string = typeof __PAYDESK_VERSION__ === 'string' ? __PAYDESK_VERSION__ : '0.0.0-dev';
