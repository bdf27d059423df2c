// Web mode listens before its core exists (see main.ts): calls that arrive meanwhile wait for it.
import type { Dispatch } from '../ipc/dispatcher';

/** The dispatch of a core that is starting: a call waits for it, and fails as `unavailable` if it could not start. */
export function lateDispatch(core: Promise<{ dispatch: Dispatch }>): Dispatch {
  return async (channel, input) => {
    let ready: { dispatch: Dispatch };
    try {
      ready = await core;
    } catch {
      return { ok: false, error: { code: 'unavailable', message: 'Paydesk could not start: see the message in its terminal.' } };
    }
    return ready.dispatch(channel, input);
  };
}
