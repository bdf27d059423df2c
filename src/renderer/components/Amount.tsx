import { formatAmount } from '../features/transactions/format';
import classes from './values.module.css';

/**
 * An amount as people read it: every digit it has, thousands grouped, in tabular figures (a column
 * of amounts lines up digit under digit) and with its currency, never wrapped. It takes the size
 * of the text around it; the columns and facts that hold amounts align them right.
 */
export function Amount({ value, currency }: { value: string; currency: string }) {
  return (
    <span className={classes.amount}>
      {formatAmount(value, currency)} {currency}
    </span>
  );
}
