// Web mode's pushes of the last while, numbered, so an event stream misses none. The page is
// served with the number of the last push so far; its stream, which opens a moment later (after
// the first calls have gone out), asks for everything after it, and after a reconnect the browser
// sends the id of the last frame it got (Last-Event-ID). A stream that was away for more than the
// log holds is told so: the page then reloads, which reads every screen afresh.
import { STREAM_GAP_EVENT } from '../../shared/web-stream';

export class PushLog {
  private readonly frames: { id: number; text: string }[] = [];
  private last = 0;

  constructor(private readonly capacity = 1000) {}

  /** The id of the newest push (0 before the first). */
  get lastId(): number {
    return this.last;
  }

  /** Numbers one push and keeps it; returns its server-sent-event frame. */
  add(channel: string, payload: unknown): string {
    const id = ++this.last;
    const text = `id: ${id}\nevent: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`;
    this.frames.push({ id, text });
    if (this.frames.length > this.capacity) this.frames.shift();
    return text;
  }

  /** The frames after `id`, oldest first, or a gap frame first when some of them are no longer kept. */
  after(id: number): string[] {
    if (!Number.isInteger(id) || id < 0 || id >= this.last) return [];
    const kept = this.frames.filter((frame) => frame.id > id).map((frame) => frame.text);
    const oldest = this.frames[0]?.id ?? this.last + 1;
    return oldest > id + 1 ? [`event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`, ...kept] : kept;
  }
}
