// Names the page and its server share (web mode, and a team server): the meta tags the server writes into the page (the
// session token; the position of the last push when it was served, main/web/push-log.ts) and the
// event that tells a stream it missed pushes no longer kept. Plain constants: the first bundle
// imports them, not the contract.
export const SESSION_META = 'paydesk-session';
export const PUSH_SEQ_META = 'paydesk-push-seq';
export const STREAM_GAP_EVENT = 'stream-gap';
/** Written into the page by a team server (its page has no session token: people sign in). */
export const TEAM_META = 'paydesk-team';
/** The header a team server's page sends with its cookie on every write (a cross-origin page cannot, without a preflight). */
export const CSRF_HEADER = 'x-paydesk-csrf';
