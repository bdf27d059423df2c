import { formatTime, formatUtc } from '../features/transactions/format';
import classes from './values.module.css';

/** A list column that shows a DateTime: wide enough for the longest moment the locale writes, two-digit
 * month, day and hour included ("12/31/26, 12:59:59 PM"). */
export const DATE_TIME_COLUMN_WIDTH = 190;

/** A moment in the user's locale and time zone; the same moment in UTC on hover. */
export function DateTime({ iso }: { iso: string | null }) {
  if (iso === null) return <>—</>;
  return (
    <time dateTime={iso} title={formatUtc(iso)} className={classes.time}>
      {formatTime(iso)}
    </time>
  );
}
