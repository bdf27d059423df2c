// The address of a ledger as people type it: a postgres:// or postgresql:// URL is a PostgreSQL
// database; anything else is the path of a SQLite file.
import type { LedgerAddress } from '../connection';

export function isPostgresAddress(address: string): boolean {
  return /^postgres(ql)?:\/\//i.test(address);
}

export function ledgerAddress(address: string): LedgerAddress {
  return isPostgresAddress(address) ? { url: address } : { file: address };
}

/** The URL as people may see it: no password. */
export function redactedUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href;
}
