// The pushes of the last while, numbered, so an event stream misses none. The page is served with
// the number of the last push so far; its stream, which opens a moment later (after the first
// calls have gone out), asks for everything after it, and after a reconnect the browser sends the
// id of the last frame it got (Last-Event-ID). A stream that was away for more than the log holds
// is told so: the page then reloads, which reads every screen afresh. On a team server a push may
// be for one person or session only (its audience): a stream replays only what is for it.
import { STREAM_GAP_EVENT } from '../../shared/web-stream';
import type { PushAudience } from '../services/event-bus';

export interface PushFrame {
  id: number;
  text: string;
  audience: PushAudience | undefined;
}

export class PushLog {
  private readonly frames: PushFrame[] = [];
  private last = 0;

  constructor(private readonly capacity = 1000) {}

  /** The id of the newest push (0 before the first). */
  get lastId(): number {
    return this.last;
  }

  /** Numbers one push and keeps it; returns it with its server-sent-event frame. */
  add(channel: string, payload: unknown, audience?: PushAudience): PushFrame {
    const id = ++this.last;
    const frame = { id, text: `id: ${id}\nevent: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`, audience };
    this.frames.push(frame);
    if (this.frames.length > this.capacity) this.frames.shift();
    return frame;
  }

  /**
   * The frames after `id` a stream may have (all, unless `mayHave` says otherwise), oldest first,
   * or a gap frame first when some of them are no longer kept.
   */
  after(id: number, mayHave: (audience: PushAudience | undefined) => boolean = () => true): string[] {
    if (!Number.isInteger(id) || id < 0 || id >= this.last) return [];
    const kept = this.frames.filter((frame) => frame.id > id && mayHave(frame.audience)).map((frame) => frame.text);
    const oldest = this.frames[0]?.id ?? this.last + 1;
    return oldest > id + 1 ? [`event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`, ...kept] : kept;
  }
}
