// Web mode's push log: numbered frames, a replay of what a stream missed, and a gap frame first
// when some of that is no longer kept or the position is another process's.
import { describe, expect, it } from 'vitest';
import { PushLog } from '../../../src/main/web/push-log';
import { STREAM_GAP_EVENT } from '../../../src/shared/web-stream';

const GAP = `event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`;

describe('push log', () => {
  it('numbers frames under its epoch and replays those after a position, oldest first', () => {
    const log = new PushLog(10, '0a1b2c3d');
    expect(log.position).toBe('0a1b2c3d.0');
    expect(log.add('a:x', { n: 1 }).text).toBe('id: 0a1b2c3d.1\nevent: a:x\ndata: {"n":1}\n\n');
    log.add('a:x', { n: 2 });
    log.add('a:y', { n: 3 });
    expect(log.position).toBe('0a1b2c3d.3');
    expect(log.after('0a1b2c3d.1')).toEqual(['id: 0a1b2c3d.2\nevent: a:x\ndata: {"n":2}\n\n', 'id: 0a1b2c3d.3\nevent: a:y\ndata: {"n":3}\n\n']);
    expect(log.after('0a1b2c3d.3')).toEqual([]);
    expect(log.after('0a1b2c3d.0')).toHaveLength(3);
  });

  it('draws a different epoch in each process', () => {
    const epochs = new Set(Array.from({ length: 20 }, () => new PushLog().epoch));
    expect(epochs.size).toBe(20);
    for (const epoch of epochs) expect(epoch).toMatch(/^[0-9a-f]{8}$/);
  });

  it('keeps a bounded number of frames and says so when a stream asks for more than it kept', () => {
    const log = new PushLog(2, '0a1b2c3d');
    for (let n = 1; n <= 5; n++) log.add('a:x', { n });
    expect(log.after('0a1b2c3d.3')).toEqual(['id: 0a1b2c3d.4\nevent: a:x\ndata: {"n":4}\n\n', 'id: 0a1b2c3d.5\nevent: a:x\ndata: {"n":5}\n\n']);
    const gap = log.after('0a1b2c3d.1');
    expect(gap[0]).toBe(GAP);
    expect(gap.slice(1)).toEqual(log.after('0a1b2c3d.3'));
  });

  it('tells a stream resuming from another process\'s position (a restart, another instance) that it has a gap, whatever the numbers', () => {
    const log = new PushLog(10, '0a1b2c3d');
    for (let n = 1; n <= 5; n++) log.add('a:x', { n });
    // Lower, equal and higher numbers than this log's: none of them say what this process pushed since.
    for (const position of ['ffffffff.2', 'ffffffff.5', 'ffffffff.900', '3']) {
      expect(log.owns(position), position).toBe(false);
      expect(log.after(position), position).toEqual([GAP]);
    }
    expect(log.owns('0a1b2c3d.2')).toBe(true);
  });

  it('replays nothing for what is no position, or one not yet reached', () => {
    const log = new PushLog(5, '0a1b2c3d');
    log.add('a:x', {});
    for (const position of ['0a1b2c3d.1', '0a1b2c3d.7', '0a1b2c3d.-1', '0a1b2c3d.0.5', '', 'NaN', '0A1B2C3D.0', 'x.1']) expect(log.after(position), position).toEqual([]);
  });

  it('replays to a stream only the pushes for it (a team server pushes some to one person or session)', () => {
    const log = new PushLog(10, '0a1b2c3d');
    log.add('a:x', { n: 1 });
    log.add('a:x', { n: 2 }, { personId: 'p-1' });
    log.add('a:x', { n: 3 }, { sessionId: 's-2' });
    const forSession = (session: string, person: string) => (audience: { personId?: string; sessionId?: string } | undefined) => !audience || audience.personId === person || audience.sessionId === session;
    expect(log.after('0a1b2c3d.0', forSession('s-1', 'p-1'))).toEqual(['id: 0a1b2c3d.1\nevent: a:x\ndata: {"n":1}\n\n', 'id: 0a1b2c3d.2\nevent: a:x\ndata: {"n":2}\n\n']);
    expect(log.after('0a1b2c3d.0', forSession('s-2', 'p-2'))).toEqual(['id: 0a1b2c3d.1\nevent: a:x\ndata: {"n":1}\n\n', 'id: 0a1b2c3d.3\nevent: a:x\ndata: {"n":3}\n\n']);
  });
});
