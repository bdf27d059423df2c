// Pushes reach the people of every instance of a team server on PostgreSQL (docs/team.md, "Several
// instances"). A push published here is shown on this instance's streams at once and written to
// the ledger's relay (ledger/push-relay-store.ts); another instance's pushes arrive as NOTIFYs of
// their ids, are read, and shown here with their audience, so a person's own pushes still reach
// only their streams. An instance never reads back its own rows, and shows a relayed id once.
// Order is kept: this instance's pushes are written one batch at a time, in the order published,
// and the ids announced are read and shown one batch at a time, in the order announced.
import type { PushChannel, PushPayload } from '../../../shared/contract';
import type { PushRelayStore, RelayedPush } from '../../ledger/push-relay-store';
import type { Clock } from '../../ledger/support';
import type { Logger } from '../../logger';
import type { EventBus, PushAudience } from '../event-bus';

/** A relay row that is not a push: sessions ended on one instance, whose streams every instance ends. */
export const SESSIONS_ENDED = '#sessions-ended';

/** Relay rows are kept this long: enough for an instance whose listening connection dropped to catch up. */
const KEEP_MS = 60_000;
/** Ids of relayed pushes remembered as shown, so a catch-up after a reconnect shows none twice. */
const REMEMBERED = 5_000;

/**
 * Waits for the end of this turn of the event loop, so what it brings goes together: the pushes
 * published in it in one write, the ids announced in it (one commit's NOTIFYs arrive at once) in one read.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

export interface PushRelayDeps {
  store: Pick<PushRelayStore, 'write' | 'read' | 'after' | 'newestId' | 'prune' | 'listen' | 'close'>;
  /** What this instance's services publish on. */
  from: EventBus;
  /** What this instance's streams show. */
  to: EventBus;
  /** Sessions ended on another instance: end their streams here. */
  sessionsEnded: (ids: string[]) => void;
  now: Clock;
  log: Logger;
  /** How often old relay rows are pruned. Default 30 s. */
  pruneEveryMs?: number;
}

export class PushRelay {
  private outgoing: Omit<RelayedPush, 'id'>[] = [];
  private writing: Promise<void> | null = null;
  private incoming: number[] = [];
  private reading: Promise<void> | null = null;
  /** The newest relay id seen; a catch-up reads after it. */
  private newest = 0;
  private readonly shown = new Set<number>();
  private listenedBefore = false;
  private unsubscribe: () => void = () => {};
  private pruneTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: PushRelayDeps) {}

  async start(): Promise<void> {
    this.unsubscribe = this.deps.from.subscribe((channel, payload, audience) => {
      this.deps.to.publish(channel, payload, audience);
      this.send(channel, JSON.stringify(payload), audience ? JSON.stringify(audience) : null);
    });
    this.newest = await this.deps.store.newestId();
    await this.deps.store.listen(
      {
        announced: (ids) => this.receive(ids),
        listening: () => {
          // The first time there is nothing to catch up on: the screens open here load what is now.
          if (this.listenedBefore) void this.catchUp();
          this.listenedBefore = true;
        },
      },
      this.deps.log,
    );
    this.pruneTimer = setInterval(() => {
      this.deps.store.prune(new Date(this.deps.now().getTime() - KEEP_MS)).catch((error: unknown) => this.deps.log.error('pruning the push relay failed', error));
    }, this.deps.pruneEveryMs ?? 30_000);
    this.pruneTimer.unref();
  }

  /** Sessions ended here: the other instances end their streams too. */
  endSessions(ids: string[]): void {
    if (ids.length > 0) this.send(SESSIONS_ENDED, JSON.stringify(ids), null);
  }

  /** Writes what is queued, then stops. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.writing;
    await this.deps.store.close();
    await this.reading;
  }

  private send(channel: string, payload: string, audience: string | null): void {
    this.outgoing.push({ channel, payload, audience });
    this.writing ??= this.writeQueued();
  }

  private async writeQueued(): Promise<void> {
    await nextTurn();
    while (this.outgoing.length > 0) {
      const batch = this.outgoing;
      this.outgoing = [];
      try {
        // Shown here already: their NOTIFYs, which come here too, are not read back.
        for (const id of await this.deps.store.write(batch)) this.remember(id);
      } catch (error) {
        // A push that cannot be relayed is lost for the other instances' screens only (they show the
        // ledger as it is at their next read); this instance showed it already.
        this.deps.log.error(`relaying ${batch.length} pushes to the other instances failed`, error);
      }
    }
    this.writing = null;
  }

  private receive(ids: number[]): void {
    if (this.closed) return;
    this.incoming.push(...ids);
    this.reading ??= this.readQueued();
  }

  private async readQueued(): Promise<void> {
    await nextTurn();
    while (this.incoming.length > 0 && !this.closed) {
      // This instance's own writes in flight are remembered first: their NOTIFYs can come here
      // before the insert's answer does.
      await this.writing;
      const announced = this.incoming;
      this.incoming = [];
      for (const id of announced) this.newest = Math.max(this.newest, id);
      // This instance's own, and any shown already, need no read.
      const ids = announced.filter((id) => !this.shown.has(id));
      if (ids.length === 0) continue;
      try {
        this.show(await this.deps.store.read(ids));
      } catch (error) {
        this.deps.log.error(`reading ${ids.length} relayed pushes failed`, error);
      }
    }
    this.reading = null;
  }

  private async catchUp(): Promise<void> {
    try {
      this.show(await this.deps.store.after(this.newest));
    } catch (error) {
      this.deps.log.error('catching up on relayed pushes failed', error);
    }
  }

  private show(pushes: readonly RelayedPush[]): void {
    for (const push of pushes) {
      this.newest = Math.max(this.newest, push.id);
      if (this.shown.has(push.id)) continue;
      this.remember(push.id);
      if (push.channel === SESSIONS_ENDED) {
        this.deps.sessionsEnded(JSON.parse(push.payload) as string[]);
        continue;
      }
      const audience = push.audience === null ? undefined : (JSON.parse(push.audience) as PushAudience);
      this.deps.to.publish(push.channel as PushChannel, JSON.parse(push.payload) as PushPayload<PushChannel>, audience);
    }
  }

  private remember(id: number): void {
    this.shown.add(id);
    if (this.shown.size > REMEMBERED) {
      const oldest = this.shown.values().next().value;
      if (oldest !== undefined) this.shown.delete(oldest);
    }
  }
}
