// Numbered migrations, applied in order, each in one transaction with its record.
// Never edit a migration that has shipped: add the next number instead.
import type { Database } from 'better-sqlite3';
import { migration0001 } from './0001_settings';

export interface Migration {
  version: number;
  name: string;
  up: (db: Database) => void;
}

export const migrations: readonly Migration[] = [migration0001];
