import type { PaydeskBridge } from '../shared/contract';

declare global {
  interface Window {
    /** Present only in Electron, exposed by the preload. */
    readonly paydesk?: PaydeskBridge;
  }
}
