// Names web mode's page and server share: the meta tags the server writes into the page (the
// session token; the number of the last push when it was served, main/web/push-log.ts) and the
// event that tells a stream it missed pushes no longer kept. Plain constants: the first bundle
// imports them, not the contract.
export const SESSION_META = 'paydesk-session';
export const PUSH_SEQ_META = 'paydesk-push-seq';
export const STREAM_GAP_EVENT = 'stream-gap';
