// The notices told to each person (migration 0023): written in the transaction of the event that
// causes them, read as each person's inbox, marked read, and followed by id by the announcer that
// pushes them to the screens. A desk's notices are for its one person (recipient '').
import type { Sql } from '../engine/types';
import { isoTime, type Clock } from '../support';
import { decodeCursor, encodeCursor, type Page } from './page';

export interface NewNotice {
  kind: string;
  /** What it is about (approval:12, payout:7, batch:3). */
  subject: string;
  title: string;
  body: string;
  /** The screen's hash route. */
  link: string;
}

export interface NoticeRecord extends NewNotice {
  id: number;
  recipient: string;
  createdAt: string;
  readAt: string | null;
}

/** Who a notice is for: named people, and every enabled person of these roles but one (the person who caused it). */
export interface NoticeRecipients {
  people?: readonly string[];
  roles?: readonly string[];
  except?: string | null;
}

interface NoticeRow {
  id: number | string;
  recipient: string;
  kind: string;
  subject: string;
  title: string;
  body: string;
  link: string;
  created_at: string;
  read_at: string | null;
}

const toNotice = (r: NoticeRow): NoticeRecord => ({
  id: Number(r.id),
  recipient: r.recipient,
  kind: r.kind,
  subject: r.subject,
  title: r.title,
  body: r.body,
  link: r.link,
  createdAt: r.created_at,
  readAt: r.read_at,
});

const COLUMNS = 'recipient, kind, subject, title, body, link, created_at';

export class NoticesRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock,
  ) {}

  /**
   * Writes one notice per recipient (a person named and found by role once), and for each the
   * deliveries its recipient chose (e-mail, chat, to the contact they gave): all in the caller's
   * transaction. Returns how many notices.
   */
  async add(notice: NewNotice, to: NoticeRecipients): Promise<number> {
    const at = isoTime(this.now());
    const values = [notice.kind, notice.subject, notice.title, notice.body, notice.link, at];
    const ids: number[] = [];
    const people = [...new Set(to.people ?? [])].filter((id) => id !== to.except);
    for (const person of people) {
      const row = await this.db.get<{ id: number | string }>(`INSERT INTO notices (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, [person, ...values]);
      ids.push(Number(row!.id));
    }
    if (to.roles && to.roles.length > 0) {
      const roles = to.roles.map(() => '?').join(', ');
      const named = people.length > 0 ? ` AND id NOT IN (${people.map(() => '?').join(', ')})` : '';
      const rows = await this.db.all<{ id: number | string }>(
        `INSERT INTO notices (${COLUMNS}) SELECT id, ?, ?, ?, ?, ?, ? FROM team_users WHERE disabled = 0 AND role IN (${roles}) AND id <> ?${named} ORDER BY id RETURNING id`,
        [...values, ...to.roles, to.except ?? '', ...people],
      );
      ids.push(...rows.map((r) => Number(r.id)));
    }
    if (ids.length > 0) {
      await this.db.run(
        `INSERT INTO notice_deliveries (notice_id, recipient, kind, channel, address, state, next_at)
         SELECT n.id, n.recipient, n.kind, c.channel, CASE c.channel WHEN 'email' THEN k.email ELSE k.chat_url END, 'pending', n.created_at
         FROM notices n JOIN notice_choices c ON c.person_id = n.recipient AND c.kind = n.kind JOIN notice_contacts k ON k.person_id = n.recipient
         WHERE n.id IN (${ids.map(() => '?').join(', ')}) AND (CASE c.channel WHEN 'email' THEN k.email ELSE k.chat_url END) IS NOT NULL
         ORDER BY n.id, c.channel`,
        ids,
      );
    }
    return ids.length;
  }

  /** A person's inbox, newest first. */
  async page(recipient: string, options: { cursor?: string | null | undefined; limit: number; unreadOnly?: boolean | undefined }): Promise<Page<NoticeRecord>> {
    const before = options.cursor ? decodeCursor(options.cursor, ['number'] as const)[0] : null;
    const rows = await this.db.all<NoticeRow>(
      `SELECT * FROM notices WHERE recipient = ?${before === null ? '' : ' AND id < ?'}${options.unreadOnly ? ' AND read_at IS NULL' : ''} ORDER BY id DESC LIMIT ?`,
      [recipient, ...(before === null ? [] : [before]), options.limit + 1],
    );
    const items = rows.slice(0, options.limit).map(toNotice);
    return { items, nextCursor: rows.length > options.limit ? encodeCursor([items[items.length - 1]!.id]) : null };
  }

  async unread(recipient: string): Promise<number> {
    return Number((await this.db.get<{ n: number | string }>('SELECT count(*) AS n FROM notices WHERE recipient = ? AND read_at IS NULL', [recipient]))?.n ?? 0);
  }

  /** Marks the recipient's notices read: those named, or all. Another's are never touched. */
  async markRead(recipient: string, ids: readonly number[] | 'all'): Promise<number> {
    const at = isoTime(this.now());
    if (ids === 'all') return this.db.run('UPDATE notices SET read_at = ? WHERE recipient = ? AND read_at IS NULL', [at, recipient]);
    if (ids.length === 0) return 0;
    return this.db.run(`UPDATE notices SET read_at = ? WHERE recipient = ? AND read_at IS NULL AND id IN (${ids.map(() => '?').join(', ')})`, [at, recipient, ...ids]);
  }

  /** Notices written after `id`, oldest first (the announcer follows them). */
  async after(id: number, limit: number): Promise<NoticeRecord[]> {
    return (await this.db.all<NoticeRow>('SELECT * FROM notices WHERE id > ? ORDER BY id LIMIT ?', [id, limit])).map(toNotice);
  }

  async newestId(): Promise<number> {
    return Number((await this.db.get<{ id: number | string | null }>('SELECT max(id) AS id FROM notices'))?.id ?? 0);
  }

  // --- the outbox of e-mail and chat ---

  /** Pending deliveries due by `at`, oldest first, with their notice. */
  async due(at: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.db.all<DeliveryRow>(
      `SELECT d.id, d.notice_id AS "noticeId", d.recipient, d.kind, d.channel, d.address, d.tries, n.title, n.body, n.link, n.created_at AS "createdAt"
       FROM notice_deliveries d JOIN notices n ON n.id = d.notice_id WHERE d.state = 'pending' AND d.next_at <= ? ORDER BY d.id LIMIT ?`,
      [at, limit],
    );
    // PostgreSQL gives a BIGINT as text.
    return rows.map((r) => ({ ...r, id: Number(r.id), noticeId: Number(r.noticeId) }));
  }

  /** The outbox as a whole: what waits to be sent, what was given up, and since when the oldest waits (its notice's time). */
  async outbox(): Promise<{ pending: number; failed: number; oldestPendingAt: string | null }> {
    const counts = await this.db.all<{ state: string; count: number | string }>("SELECT state, count(*) AS count FROM notice_deliveries WHERE state IN ('pending', 'failed') GROUP BY state");
    const oldest = await this.db.get<{ at: string | null }>("SELECT min(n.created_at) AS at FROM notice_deliveries d JOIN notices n ON n.id = d.notice_id WHERE d.state = 'pending'");
    const count = (state: string) => Number(counts.find((row) => row.state === state)?.count ?? 0);
    return { pending: count('pending'), failed: count('failed'), oldestPendingAt: oldest?.at ?? null };
  }

  /** Marks deliveries sent (a digest's: `digestOf` names the one whose message carried them); only those still pending. */
  async markSent(ids: readonly number[], digestOf: number | null = null): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db.run(`UPDATE notice_deliveries SET state = 'sent', sent_at = ?, digest_of = ? WHERE state = 'pending' AND id IN (${ids.map(() => '?').join(', ')})`, [isoTime(this.now()), digestOf, ...ids]);
  }

  /** A try failed: tried again at `nextAt`, or failed for good when `nextAt` is null. */
  async markTried(ids: readonly number[], error: string, nextAt: string | null): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run(
      `UPDATE notice_deliveries SET tries = tries + 1, last_error = ?, state = ?, next_at = coalesce(?, next_at) WHERE state = 'pending' AND id IN (${ids.map(() => '?').join(', ')})`,
      [error, nextAt === null ? 'failed' : 'pending', nextAt, ...ids],
    );
  }

  async deliveries(noticeId: number): Promise<{ channel: string; state: string; tries: number; lastError: string | null }[]> {
    return (await this.db.all<{ channel: string; state: string; tries: number; last_error: string | null }>('SELECT channel, state, tries, last_error FROM notice_deliveries WHERE notice_id = ? ORDER BY id', [noticeId])).map((r) => ({
      channel: r.channel,
      state: r.state,
      tries: Number(r.tries),
      lastError: r.last_error,
    }));
  }

  /** A channel's outcome: its last success, or its last error (kept until the next error). */
  async noteChannel(channel: string, error: string | null): Promise<void> {
    const at = isoTime(this.now());
    await this.db.run(
      error === null
        ? 'INSERT INTO notice_channels (channel, last_sent_at) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET last_sent_at = excluded.last_sent_at'
        : 'INSERT INTO notice_channels (channel, last_error, last_error_at) VALUES (?, ?, ?) ON CONFLICT (channel) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at',
      error === null ? [channel, at] : [channel, error, at],
    );
  }

  async channels(): Promise<{ channel: string; lastSentAt: string | null; lastError: string | null; lastErrorAt: string | null }[]> {
    return (await this.db.all<{ channel: string; last_sent_at: string | null; last_error: string | null; last_error_at: string | null }>('SELECT * FROM notice_channels ORDER BY channel')).map((r) => ({
      channel: r.channel,
      lastSentAt: r.last_sent_at,
      lastError: r.last_error,
      lastErrorAt: r.last_error_at,
    }));
  }

  // --- each person's choices ---

  async choicesOf(person: string): Promise<{ email: string | null; chatUrl: string | null; choices: { kind: string; channel: string }[] }> {
    const contact = await this.db.get<{ email: string | null; chat_url: string | null }>('SELECT email, chat_url FROM notice_contacts WHERE person_id = ?', [person]);
    const choices = await this.db.all<{ kind: string; channel: string }>('SELECT kind, channel FROM notice_choices WHERE person_id = ? ORDER BY kind, channel', [person]);
    return { email: contact?.email ?? null, chatUrl: contact?.chat_url ?? null, choices };
  }

  /** Replaces a person's contacts and choices (in the caller's transaction). */
  async setChoices(person: string, contact: { email: string | null; chatUrl: string | null }, choices: readonly { kind: string; channel: string }[]): Promise<void> {
    await this.db.run(
      'INSERT INTO notice_contacts (person_id, email, chat_url, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (person_id) DO UPDATE SET email = excluded.email, chat_url = excluded.chat_url, updated_at = excluded.updated_at',
      [person, contact.email, contact.chatUrl, isoTime(this.now())],
    );
    await this.db.run('DELETE FROM notice_choices WHERE person_id = ?', [person]);
    for (const choice of choices) await this.db.run('INSERT INTO notice_choices (person_id, kind, channel) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [person, choice.kind, choice.channel]);
  }
}

export interface DeliveryRecord {
  id: number;
  noticeId: number;
  recipient: string;
  kind: string;
  channel: 'email' | 'chat';
  address: string;
  tries: number;
  title: string;
  body: string;
  link: string;
  createdAt: string;
}

/** A delivery as read, its ids as the engine gives them. */
type DeliveryRow = Omit<DeliveryRecord, 'id' | 'noticeId'> & { id: number | string; noticeId: number | string };
