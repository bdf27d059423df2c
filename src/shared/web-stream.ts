// Names web mode's page and server share for the event stream (main/web/push-log.ts): the page's
// meta tag with the number of the last push when it was served, and the event that tells a stream
// it missed pushes no longer kept. Plain constants: the first bundle imports them, not the contract.
export const PUSH_SEQ_META = 'paydesk-push-seq';
export const STREAM_GAP_EVENT = 'stream-gap';
