import { formatTime, formatUtc } from '../features/transactions/format';
import classes from './values.module.css';

/** A moment in the user's locale and time zone; the same moment in UTC on hover. */
export function DateTime({ iso }: { iso: string | null }) {
  if (iso === null) return <>—</>;
  return (
    <time dateTime={iso} title={formatUtc(iso)} className={classes.time}>
      {formatTime(iso)}
    </time>
  );
}
