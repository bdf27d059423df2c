import type { Migration } from './index';

// Notices (docs/notifications.md): what Paydesk tells a person — an approval awaits them, their
// request was decided, a live payout's outcome is unknown or it was declined, a batch finished with
// refusals or unknown outcomes. One row per message and recipient, written in the transaction of
// the event that causes it, so a crash can neither lose one nor tell it without its event.
// recipient: the team person's id on a team server; '' on a desk (its one person). read_at: the
// inbox's read state. link: the screen's hash route (#/approvals/12), made absolute with the
// server's public URL only where a message leaves the app. subject: what the message is about
// (approval:12, payout:7, batch:3), so a flood of one kind about many subjects reads as one digest.
// notice_deliveries: the outbox of the channels that leave the app (e-mail, chat), one row per
// notice and channel the recipient chose, written with the notice; the sender drains it with
// retries (tries, next_at, last_error) and marks each sent, failed, or sent in a digest.
// notice_choices: what each person receives on which channel (a row: this kind, on this channel);
// notice_contacts: where (their e-mail address, their chat webhook URL); notice_channels: each
// channel's last success and last error, shown to admins.
// Named "notices" so as not to be mistaken for the gateway's notifications (0004).
// PostgreSQL's 0011_notices makes the same table.
export const migration0023: Migration = {
  version: 23,
  name: 'notices',
  up: (db) => {
    db.exec(`
      CREATE TABLE notices (
        id INTEGER PRIMARY KEY,
        recipient TEXT NOT NULL,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        link TEXT NOT NULL,
        created_at TEXT NOT NULL,
        read_at TEXT
      ) STRICT;
      CREATE INDEX notices_inbox ON notices (recipient, id);
      CREATE TABLE notice_deliveries (
        id INTEGER PRIMARY KEY,
        notice_id INTEGER NOT NULL REFERENCES notices (id),
        recipient TEXT NOT NULL,
        kind TEXT NOT NULL,
        channel TEXT NOT NULL CHECK (channel IN ('email', 'chat')),
        address TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
        tries INTEGER NOT NULL DEFAULT 0,
        next_at TEXT NOT NULL,
        last_error TEXT,
        sent_at TEXT,
        digest_of INTEGER
      ) STRICT;
      CREATE INDEX notice_deliveries_due ON notice_deliveries (state, next_at);
      CREATE TABLE notice_choices (
        person_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        channel TEXT NOT NULL CHECK (channel IN ('email', 'chat')),
        PRIMARY KEY (person_id, kind, channel)
      ) STRICT;
      CREATE TABLE notice_contacts (
        person_id TEXT PRIMARY KEY,
        email TEXT,
        chat_url TEXT,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE notice_channels (
        channel TEXT PRIMARY KEY,
        last_sent_at TEXT,
        last_error TEXT,
        last_error_at TEXT
      ) STRICT;
    `);
  },
};
