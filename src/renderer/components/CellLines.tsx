import type { ReactNode } from 'react';
import classes from './VirtualTable.module.css';

/**
 * Two values of a list row in one cell, one above the other: the first as the row's text, the
 * second smaller and dimmed (a reference and its e-mail, an amount and its method), or two badges
 * (a status and its verification). A line too long for the cell is cut at its end; a plain-text
 * line carries its text as title, a richer one says it itself (CopyValue) or is given `firstTitle`
 * (an amount beyond what its column was sized for).
 */
export function CellLines({ first, second, firstTitle }: { first: ReactNode; second: ReactNode; firstTitle?: string }) {
  return (
    <div className={classes.lines}>
      <div className={classes.line} title={typeof first === 'string' ? first : firstTitle}>
        {first}
      </div>
      <div className={`${classes.line} ${classes.second}`} title={typeof second === 'string' ? second : undefined}>
        {second}
      </div>
    </div>
  );
}
