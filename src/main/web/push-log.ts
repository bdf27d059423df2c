// The pushes of the last while, numbered, so an event stream misses none. The page is served with
// the position of the last push so far; its stream, which opens a moment later (after the first
// calls have gone out), asks for everything after it, and after a reconnect the browser sends the
// id of the last frame it got (Last-Event-ID; every stream opens with a frame that carries only
// the position it starts from, so a browser that got no push yet resumes from there). A stream that was away for more than the log holds
// is told so: the page then reloads, which reads every screen afresh. On a team server a push may
// be for one person or session only (its audience): a stream replays only what is for it.
//
// Positions are this log's own: `<epoch>.<n>`, the epoch drawn when the process starts. Another
// process numbers its pushes from 1 as well (a restarted server, or another instance of a team
// server behind a balancer, where a stream lands when its own instance died), so a position with
// another epoch says nothing about what this process pushed since: a stream resuming from one is
// told it has a gap, as one away too long is.
import { randomBytes } from 'node:crypto';
import { STREAM_GAP_EVENT } from '../../shared/web-stream';
import type { PushAudience } from '../services/event-bus';

export interface PushFrame {
  id: string;
  text: string;
  audience: PushAudience | undefined;
}

/** A position as a log writes it (an epoch of 8 hex digits, then the push's number), or an older Paydesk's bare number. */
const POSITION = /^(?:([0-9a-f]{8})\.)?(\d{1,15})$/;
const GAP_FRAME = `event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`;

export class PushLog {
  private readonly frames: (PushFrame & { n: number })[] = [];
  private last = 0;

  constructor(
    private readonly capacity = 1000,
    readonly epoch = randomBytes(4).toString('hex'),
  ) {}

  /** Where the newest push is (`<epoch>.0` before the first). */
  get position(): string {
    return `${this.epoch}.${this.last}`;
  }

  /** Whether `position` is one this log wrote (anything else is another process's, or no position). */
  owns(position: string): boolean {
    return POSITION.exec(position)?.[1] === this.epoch;
  }

  /** Numbers one push and keeps it; returns it with its server-sent-event frame. */
  add(channel: string, payload: unknown, audience?: PushAudience): PushFrame {
    const n = ++this.last;
    const id = `${this.epoch}.${n}`;
    const frame = { id, n, text: `id: ${id}\nevent: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`, audience };
    this.frames.push(frame);
    if (this.frames.length > this.capacity) this.frames.shift();
    return frame;
  }

  /**
   * The frames after `position` a stream may have (all, unless `mayHave` says otherwise), oldest
   * first, with a gap frame first when some of them are no longer kept or the position is another
   * process's; nothing for what is no position at all, or one not yet reached.
   */
  after(position: string, mayHave: (audience: PushAudience | undefined) => boolean = () => true): string[] {
    const match = POSITION.exec(position);
    if (!match) return [];
    if (match[1] !== this.epoch) return [GAP_FRAME];
    const n = Number(match[2]);
    if (n >= this.last) return [];
    const kept = this.frames.filter((frame) => frame.n > n && mayHave(frame.audience)).map((frame) => frame.text);
    const oldest = this.frames[0]?.n ?? this.last + 1;
    return oldest > n + 1 ? [GAP_FRAME, ...kept] : kept;
  }
}
