import '@mantine/dates/styles.css';
import { Button, Group, MultiSelect, TextInput } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { memo, useMemo } from 'react';
import { CURRENCY_OPTIONS, useDebouncedSearch, withChosen } from '../../components/filter-inputs';
import { PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';
import { METHOD_LABELS, PAYOUT_METHODS } from '../../../shared/spec/methods';
import { hasAnyFilter, NO_FILTERS, type PayoutFilters } from './filters';

const STATUS_OPTIONS = PAYOUT_STATUS_CATALOGUE.map((e) => ({ value: String(e.code), label: `${e.code} · ${e.meaning}` }));
const METHOD_OPTIONS = PAYOUT_METHODS.map((m) => ({ value: m, label: METHOD_LABELS[m] }));

/** Memoised: the list around it re-renders with every page and live row; the filters change only with the route. */
export const PayoutFilterBar = memo(function PayoutFilterBar({ filters, onChange, fieldErrors }: { filters: PayoutFilters; onChange: (next: PayoutFilters) => void; fieldErrors: Record<string, string> }) {
  const set = <K extends keyof PayoutFilters>(key: K, value: PayoutFilters[K]) => onChange({ ...filters, [key]: value });
  const [search, typeSearch] = useDebouncedSearch(filters.search, (value) => onChange({ ...filters, search: value }));
  const statusOptions = useMemo(() => withChosen(STATUS_OPTIONS, filters.statusCodes), [filters.statusCodes]);
  const currencyOptions = useMemo(() => [...new Set([...CURRENCY_OPTIONS, ...filters.currencies])], [filters.currencies]);

  return (
    <Group gap="sm" align="flex-end" role="search" aria-label="Payout filters">
      <TextInput
        label="Search"
        placeholder="merchantReference, payout_id or e-mail (prefix)"
        value={search}
        onChange={(event) => typeSearch(event.currentTarget.value)}
        error={fieldErrors.search}
        w={280}
      />
      <MultiSelect label="Status" placeholder={filters.statusCodes.length ? undefined : 'Any status'} data={statusOptions} value={filters.statusCodes} onChange={(v) => set('statusCodes', v)} searchable clearable w={220} comboboxProps={{ width: 360, position: 'bottom-start' }} />
      <MultiSelect label="Method" placeholder={filters.methods.length ? undefined : 'Any method'} data={withChosen(METHOD_OPTIONS, filters.methods)} value={filters.methods} onChange={(v) => set('methods', v)} clearable w={200} />
      <MultiSelect label="Currency" placeholder={filters.currencies.length ? undefined : 'Any currency'} data={currencyOptions} value={filters.currencies} onChange={(v) => set('currencies', v)} searchable clearable w={160} error={fieldErrors.currencies} />
      <DatePickerInput
        type="range"
        label="Created (local days)"
        placeholder="Any date"
        value={[filters.from, filters.to]}
        onChange={([from, to]) => {
          // A half-picked range waits for its second day; a cleared one clears both.
          if ((from === null) === (to === null)) onChange({ ...filters, from: from === null ? null : String(from), to: to === null ? null : String(to) });
        }}
        clearable
        allowSingleDateInRange
        w={220}
        error={fieldErrors.createdFrom ?? fieldErrors.createdTo}
      />
      {hasAnyFilter(filters) && (
        <Button variant="subtle" onClick={() => onChange(NO_FILTERS)} mb={2}>
          Clear filters
        </Button>
      )}
    </Group>
  );
});
