import type { PostgresMigration } from './index';

// SQLite's 0024_watch_indexes: what the watches ask (told already? the profile's newest notification?).
export const postgres0012: PostgresMigration = {
  version: 12,
  name: 'watch_indexes',
  sql: `
    CREATE INDEX notices_told ON notices (kind, subject, created_at);
    CREATE INDEX notifications_profile_received ON notifications (profile_id, received_at);
  `,
};
