// Exact sums of decimal TEXT columns in SQL, on both engines. SQLite cannot add decimal text
// exactly (sum() goes through binary floats), so each value is split into its integer part and its
// fraction scaled to 10 digits (the largest scale, crypto), both summed as 64-bit integers and read
// back as text into BigInt: the sum is int + frac / 10^10. PostgreSQL sums them as NUMERIC. The
// values summed are never negative (amounts; a direction says which way money moved). A sum past
// 64 bits makes SQLite raise "integer overflow", never a wrong figure.
import { sumAmounts } from '../../../shared/money';
import type { EngineKind } from '../engine/types';

const FRACTION_DIGITS = 10;
const FRACTION_UNIT = 10n ** BigInt(FRACTION_DIGITS);

/** SQLite: the integer part of a decimal text column, as an INTEGER. */
export const integerPartSql = (column: string): string => `CAST(CASE WHEN instr(${column}, '.') > 0 THEN substr(${column}, 1, instr(${column}, '.') - 1) ELSE ${column} END AS INTEGER)`;

/** SQLite: the fraction of a decimal text column in units of 10^-10, as an INTEGER. */
export const fractionPartSql = (column: string): string =>
  `CASE WHEN instr(${column}, '.') > 0 THEN CAST(substr(substr(${column}, instr(${column}, '.') + 1) || '${'0'.repeat(FRACTION_DIGITS)}', 1, ${FRACTION_DIGITS}) AS INTEGER) ELSE 0 END`;

/** int + frac / 10^10 as plain decimal text, exactly. */
export function decimalOf(intSum: bigint, fracSum: bigint): string {
  const units = intSum * FRACTION_UNIT + fracSum;
  const digits = (units < 0n ? -units : units).toString().padStart(FRACTION_DIGITS + 1, '0');
  return sumAmounts([`${units < 0n ? '-' : ''}${digits.slice(0, -FRACTION_DIGITS)}.${digits.slice(-FRACTION_DIGITS)}`]);
}

/** The select-list terms that sum `expression` exactly as `alias` (read back with exactSum). */
export function exactSumSql(engine: EngineKind, expression: string, alias: string): string {
  return engine === 'postgres'
    ? `CAST(sum(CAST(${expression} AS NUMERIC)) AS TEXT) AS ${alias}`
    : `CAST(sum(${integerPartSql(expression)}) AS TEXT) AS ${alias}_int, CAST(sum(${fractionPartSql(expression)}) AS TEXT) AS ${alias}_frac`;
}

/** The plain decimal text of a sum selected by exactSumSql ("0" for a sum of no rows). */
export function exactSum(engine: EngineKind, row: Record<string, unknown>, alias: string): string {
  if (engine === 'postgres') return sumAmounts([(row[alias] as string | null) ?? '0']);
  return decimalOf(BigInt((row[`${alias}_int`] as string | null) ?? 0), BigInt((row[`${alias}_frac`] as string | null) ?? 0));
}
