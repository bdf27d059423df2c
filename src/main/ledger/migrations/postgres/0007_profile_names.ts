import type { PostgresMigration } from './index';

// SQLite's 0020_profile_names: profiles may be archived (archived_at); names are unique, case,
// spaces and Unicode form aside, and the emulator's name is its own. The first profile of each name
// keeps it (the emulator's own profile first), each later one gets " (2)", " (3)"…, a sandbox or
// live profile named like the emulator becomes "Sandbox profile" / "Live profile"; each rename is
// kept in profile_renames for the app to audit at its next start. The unique index compares names
// in lower case without white space (regexp \s), the migration's loop in their NFKC form too (a
// superset of the index's sameness, so the index always builds; NFKC needs a UTF8 database).
export const postgres0007: PostgresMigration = {
  version: 7,
  name: 'profile_names',
  sql: `
    ALTER TABLE profiles ADD COLUMN archived_at TEXT COLLATE "C";
    CREATE TABLE profile_renames (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      profile_id TEXT COLLATE "C" NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
      old_name TEXT NOT NULL,
      new_name TEXT NOT NULL,
      reason TEXT COLLATE "C" NOT NULL CHECK (reason IN ('duplicate', 'reserved')),
      renamed_at TEXT COLLATE "C" NOT NULL,
      audited_at TEXT COLLATE "C"
    );
    CREATE FUNCTION pg_temp.profile_name_key(name TEXT) RETURNS TEXT LANGUAGE sql STABLE
      AS $$ SELECT lower(regexp_replace(CASE WHEN current_setting('server_encoding') = 'UTF8' THEN normalize(name, NFKC) ELSE name END, '\\s', '', 'g')) $$;
    DO $$
    DECLARE
      emulator_key CONSTANT TEXT := pg_temp.profile_name_key('Local emulator');
      kept TEXT[] := '{}';
      renamed TEXT[] := '{}';
      reasons TEXT[] := '{}';
      profile RECORD;
      base TEXT;
      candidate TEXT;
      n INTEGER;
    BEGIN
      -- Which profiles keep their names: the emulator's own first, then in the order they were made.
      FOR profile IN
        SELECT id, environment, pg_temp.profile_name_key(name) AS name_key FROM profiles
        ORDER BY (environment = 'local' AND pg_temp.profile_name_key(name) = emulator_key) DESC, created_at, id
      LOOP
        IF profile.environment <> 'local' AND profile.name_key = emulator_key THEN
          renamed := renamed || profile.id;
          reasons := reasons || 'reserved'::TEXT;
        ELSIF profile.name_key = ANY (kept) THEN
          renamed := renamed || profile.id;
          reasons := reasons || 'duplicate'::TEXT;
        ELSE
          kept := kept || profile.name_key;
        END IF;
      END LOOP;
      -- The others, each to the first name free among them all.
      FOR i IN 1 .. coalesce(array_length(renamed, 1), 0) LOOP
        SELECT id, name, environment INTO profile FROM profiles WHERE id = renamed[i];
        base := CASE WHEN reasons[i] = 'duplicate' THEN profile.name WHEN profile.environment = 'live' THEN 'Live profile' ELSE 'Sandbox profile' END;
        candidate := base;
        n := 1;
        IF reasons[i] = 'duplicate' OR pg_temp.profile_name_key(base) = ANY (kept) THEN
          LOOP
            n := n + 1;
            candidate := base || ' (' || n || ')';
            EXIT WHEN NOT (pg_temp.profile_name_key(candidate) = ANY (kept));
          END LOOP;
        END IF;
        kept := kept || pg_temp.profile_name_key(candidate);
        UPDATE profiles SET name = candidate WHERE id = profile.id;
        INSERT INTO profile_renames (profile_id, old_name, new_name, reason, renamed_at)
        VALUES (profile.id, profile.name, candidate, reasons[i], to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
      END LOOP;
    END $$;
    DROP FUNCTION pg_temp.profile_name_key(TEXT);
    CREATE UNIQUE INDEX profiles_unique_name ON profiles ((lower(regexp_replace(name, '\\s', '', 'g'))));
  `,
};
