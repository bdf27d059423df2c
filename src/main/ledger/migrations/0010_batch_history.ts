import type { Migration } from './index';

// The history of a payout batch: every start, pause, resume, cancel and end, and every
// interruption (the app stopped while the batch was running). Before, a batch that survived three
// crashes and three automatic resumes showed DONE with its start and end only. Append-only.
//
//   kind         actor            what
//   started      user             batches:start
//   paused       user | system    batches:pause; or Paydesk itself (no gateway session: note says why)
//   resumed      user | system    batches:resume; or Paydesk at start-up, after an interruption
//   cancelled    user             batches:cancel
//   finished     system           the last pending item was sent
//   interrupted  system           cause 'closed': the app was closed while the batch ran (recorded
//                                 then; stopped_at = that time); cause 'unexpected': it stopped
//                                 without closing (killed, crashed, power lost), found at the next
//                                 start (at = then; stopped_at = the batch's last recorded activity,
//                                 the best known time of the stop)
//
// pending / in_flight / unknown: the batch's items in those states at that moment (in_flight: sent
// or being sent, outcome not recorded). NULL on the events carried over below from the audit log
// and the batch rows, whose counts were never recorded; interruptions before this version were
// not recorded at all (a resume at start-up implies one).
export const migration0010: Migration = {
  version: 10,
  name: 'batch_history',
  up: (db) => {
    db.exec(`
      CREATE TABLE batch_events (
        id INTEGER PRIMARY KEY,
        batch_id INTEGER NOT NULL REFERENCES batches (id),
        kind TEXT NOT NULL CHECK (kind IN ('started', 'paused', 'resumed', 'cancelled', 'finished', 'interrupted')),
        at TEXT NOT NULL,
        actor TEXT NOT NULL CHECK (actor IN ('user', 'system')),
        cause TEXT CHECK (cause IN ('closed', 'unexpected')),
        stopped_at TEXT,
        pending INTEGER CHECK (pending >= 0),
        in_flight INTEGER CHECK (in_flight >= 0),
        unknown INTEGER CHECK (unknown >= 0),
        note TEXT,
        CHECK ((kind = 'interrupted') = (cause IS NOT NULL AND stopped_at IS NOT NULL))
      ) STRICT;
      CREATE INDEX batch_events_batch ON batch_events (batch_id, id);
      CREATE TRIGGER batch_events_no_update BEFORE UPDATE ON batch_events
      BEGIN SELECT RAISE(ABORT, 'batch_events is append-only: UPDATE refused'); END;
      CREATE TRIGGER batch_events_no_delete BEFORE DELETE ON batch_events
      BEGIN SELECT RAISE(ABORT, 'batch_events is append-only: DELETE refused'); END;

      INSERT INTO batch_events (batch_id, kind, at, actor, note)
      SELECT batch_id, kind, at, actor, note FROM (
        SELECT id AS batch_id, 'started' AS kind, started_at AS at, 'user' AS actor, NULL AS note, 0 AS rank
          FROM batches WHERE state != 'draft' AND started_at IS NOT NULL
        UNION ALL
        SELECT json_extract(a.details, '$.batchId'),
               CASE a.action WHEN 'batch.pause' THEN 'paused' WHEN 'batch.resume' THEN 'resumed' ELSE 'cancelled' END,
               a.at,
               CASE a.actor WHEN 'system' THEN 'system' ELSE 'user' END,
               CASE WHEN json_extract(a.details, '$.reason') = 'start-up' THEN 'at start-up' END,
               1
          FROM audit_log a
         WHERE a.action IN ('batch.pause', 'batch.resume', 'batch.cancel')
           AND json_valid(a.details)
           AND EXISTS (SELECT 1 FROM batches b WHERE b.id = json_extract(a.details, '$.batchId') AND b.state != 'draft')
        UNION ALL
        SELECT id, 'finished', finished_at, 'system', NULL, 2
          FROM batches WHERE state = 'done' AND finished_at IS NOT NULL
      ) ORDER BY at, rank;
    `);
  },
};
