// Web mode's push log: numbered frames, a replay of what a stream missed, and a gap frame first
// when some of that is no longer kept.
import { describe, expect, it } from 'vitest';
import { PushLog } from '../../../src/main/web/push-log';
import { STREAM_GAP_EVENT } from '../../../src/shared/web-stream';

describe('push log', () => {
  it('numbers frames and replays those after an id, oldest first', () => {
    const log = new PushLog(10);
    expect(log.lastId).toBe(0);
    expect(log.add('a:x', { n: 1 }).text).toBe('id: 1\nevent: a:x\ndata: {"n":1}\n\n');
    log.add('a:x', { n: 2 });
    log.add('a:y', { n: 3 });
    expect(log.lastId).toBe(3);
    expect(log.after(1)).toEqual(['id: 2\nevent: a:x\ndata: {"n":2}\n\n', 'id: 3\nevent: a:y\ndata: {"n":3}\n\n']);
    expect(log.after(3)).toEqual([]);
    expect(log.after(0)).toHaveLength(3);
  });

  it('keeps a bounded number of frames and says so when a stream asks for more than it kept', () => {
    const log = new PushLog(2);
    for (let n = 1; n <= 5; n++) log.add('a:x', { n });
    expect(log.after(3)).toEqual(['id: 4\nevent: a:x\ndata: {"n":4}\n\n', 'id: 5\nevent: a:x\ndata: {"n":5}\n\n']);
    const gap = log.after(1);
    expect(gap[0]).toBe(`event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`);
    expect(gap.slice(1)).toEqual(log.after(3));
  });

  it('replays nothing for an id it never gave or one not yet reached', () => {
    const log = new PushLog(5);
    log.add('a:x', {});
    for (const id of [1, 7, -1, 0.5, Number.NaN]) expect(log.after(id), String(id)).toEqual([]);
  });

  it('replays to a stream only the pushes for it (a team server pushes some to one person or session)', () => {
    const log = new PushLog(10);
    log.add('a:x', { n: 1 });
    log.add('a:x', { n: 2 }, { personId: 'p-1' });
    log.add('a:x', { n: 3 }, { sessionId: 's-2' });
    const forSession = (session: string, person: string) => (audience: { personId?: string; sessionId?: string } | undefined) => !audience || audience.personId === person || audience.sessionId === session;
    expect(log.after(0, forSession('s-1', 'p-1'))).toEqual(['id: 1\nevent: a:x\ndata: {"n":1}\n\n', 'id: 2\nevent: a:x\ndata: {"n":2}\n\n']);
    expect(log.after(0, forSession('s-2', 'p-2'))).toEqual(['id: 1\nevent: a:x\ndata: {"n":1}\n\n', 'id: 3\nevent: a:x\ndata: {"n":3}\n\n']);
  });
});
