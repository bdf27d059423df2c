// Numbered migrations, applied in order, each in one transaction with its record.
// Never edit a migration that has shipped: add the next number instead.
import type { Database } from 'better-sqlite3';
import { migration0001 } from './0001_settings';
import { migration0002 } from './0002_profiles';
import { migration0003 } from './0003_payments';
import { migration0004 } from './0004_notifications';
import { migration0005 } from './0005_audit_log';
import { migration0006 } from './0006_verification';
import { migration0007 } from './0007_payout_batches';
import { migration0008 } from './0008_processed_dedupe';
import { migration0009 } from './0009_settling';
import { migration0010 } from './0010_batch_history';
import { migration0011 } from './0011_cards_and_stale_notifications';
import { migration0012 } from './0012_notification_retention';
import { migration0013 } from './0013_notification_search';
import { migration0014 } from './0014_ledger_copies';
import { migration0015 } from './0015_team';
import { migration0016 } from './0016_approvals';
import { migration0017 } from './0017_scale_out';
import { migration0018 } from './0018_day_totals_index';

export interface Migration {
  version: number;
  name: string;
  up: (db: Database) => void;
}

export const migrations: readonly Migration[] = [migration0001, migration0002, migration0003, migration0004, migration0005, migration0006, migration0007, migration0008, migration0009, migration0010, migration0011, migration0012, migration0013, migration0014, migration0015, migration0016, migration0017, migration0018];
