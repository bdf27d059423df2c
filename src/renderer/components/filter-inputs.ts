import { useDebouncedCallback } from '@mantine/hooks';
import currencyCodes from 'currency-codes';
import { useEffect, useRef, useState } from 'react';

export const CURRENCY_OPTIONS: readonly string[] = currencyCodes.codes();

/** A catalogue of codes as the options of a filter: "302 · Declined due to risk decision". */
export const codeOptions = (catalogue: readonly { code: string | number; meaning: string }[]) => catalogue.map((e) => ({ value: String(e.code), label: `${e.code} · ${e.meaning}` }));

/** Options plus any value already chosen that the list does not know (an unknown code from a link stays visible). */
export function withChosen(options: { value: string; label: string }[], chosen: readonly string[]) {
  const known = new Set(options.map((o) => o.value));
  return [...options, ...chosen.filter((c) => !known.has(c)).map((c) => ({ value: c, label: `${c} · unknown` }))];
}

/**
 * A search box that updates the list after a pause in typing, not on every key. The box follows
 * the route only when something else changed it (a saved view, "Clear filters"), not when the
 * route merely echoes what was typed, which would drop keys typed meanwhile; such a change also
 * drops a search typed just before it and not yet committed (it would come back after a clear).
 */
export function useDebouncedSearch(routeValue: string, commit: (value: string) => void): [string, (value: string) => void] {
  const [search, setSearch] = useState(routeValue);
  const committed = useRef(routeValue);
  const commitLater = useDebouncedCallback((value: string) => {
    committed.current = value.trim();
    commit(value.trim());
  }, 300);
  useEffect(() => {
    if (routeValue !== committed.current) {
      // Changed elsewhere ("Clear filters", a saved view): what was typed just before must not come back after it.
      commitLater.cancel();
      setSearch(routeValue);
    }
    committed.current = routeValue;
  }, [routeValue, commitLater]);
  return [
    search,
    (value) => {
      setSearch(value);
      commitLater(value);
    },
  ];
}
