import type { PostgresMigration } from './index';

// SQLite's 0017_scale_out (instances, who claimed an attempt, who runs a batch), and the relay of
// pushes between the instances of one ledger: each push is a row of push_relay, announced by
// NOTIFY paydesk_push with its id (a NOTIFY payload is limited to 8000 bytes, a push is not);
// every instance LISTENs and reads the rows it did not write (ledger/push-relay-store.ts). Rows
// are pruned after a minute: a push is for the screens open now.
export const postgres0005: PostgresMigration = {
  version: 5,
  name: 'scale_out',
  sql: `
    ALTER TABLE attempts ADD COLUMN claimed_by TEXT COLLATE "C";
    ALTER TABLE batches ADD COLUMN run_by TEXT COLLATE "C";
    CREATE TABLE ledger_instances (
      id TEXT COLLATE "C" PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      started_at TEXT COLLATE "C" NOT NULL,
      last_seen_at TEXT COLLATE "C" NOT NULL
    );
    CREATE TABLE push_relay (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      origin TEXT COLLATE "C" NOT NULL,
      channel TEXT COLLATE "C" NOT NULL,
      payload TEXT NOT NULL,
      audience TEXT,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX push_relay_created ON push_relay (created_at);
    CREATE FUNCTION push_relay_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('paydesk_push', NEW.id::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER push_relay_notify AFTER INSERT ON push_relay FOR EACH ROW EXECUTE FUNCTION push_relay_notify();
  `,
};
