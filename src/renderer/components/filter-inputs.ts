import { useDebouncedCallback } from '@mantine/hooks';
import currencyCodes from 'currency-codes';
import { useEffect, useRef, useState } from 'react';

export const CURRENCY_OPTIONS: readonly string[] = currencyCodes.codes();

/** Options plus any value already chosen that the list does not know (an unknown code from a link stays visible). */
export function withChosen(options: { value: string; label: string }[], chosen: readonly string[]) {
  const known = new Set(options.map((o) => o.value));
  return [...options, ...chosen.filter((c) => !known.has(c)).map((c) => ({ value: c, label: `${c} · unknown` }))];
}

/**
 * A search box that updates the list after a pause in typing, not on every key. The box follows
 * the route only when something else changed it (a saved view, "Clear filters"), not when the
 * route merely echoes what was typed, which would drop keys typed meanwhile.
 */
export function useDebouncedSearch(routeValue: string, commit: (value: string) => void): [string, (value: string) => void] {
  const [search, setSearch] = useState(routeValue);
  const committed = useRef(routeValue);
  useEffect(() => {
    if (routeValue !== committed.current) setSearch(routeValue);
    committed.current = routeValue;
  }, [routeValue]);
  const commitLater = useDebouncedCallback((value: string) => {
    committed.current = value.trim();
    commit(value.trim());
  }, 300);
  return [
    search,
    (value) => {
      setSearch(value);
      commitLater(value);
    },
  ];
}
