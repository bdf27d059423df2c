// jose is loaded on first use, not at start-up: importing it costs ~50 ms of CPU (it sets up
// WebCrypto), and most runs of main and of the emulator sign or verify nothing. The module is
// cached by the loader, so later calls only wait for a resolved promise.
export const loadJose = (): Promise<typeof import('jose')> => import('jose');
