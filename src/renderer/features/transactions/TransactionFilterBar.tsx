import '@mantine/dates/styles.css';
import { Button, Checkbox, Group, MultiSelect, Select, TextInput } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { memo, useMemo } from 'react';
import { CURRENCY_OPTIONS, useDebouncedSearch, withChosen } from '../../components/filter-inputs';
import type { StatusCategoryView } from '../../../shared/contract';
import { REASON_CATALOGUE } from '../../../shared/spec/codes';
import { categoryLabels } from '../codes/category';
import { hasAnyFilter, NO_FILTERS, type SortOrder, type TransactionFilters } from './list-query';
import type { TransactionListDomain } from './list-domains';

const REASON_OPTIONS = REASON_CATALOGUE.map((e) => ({ value: e.code, label: `${e.code} · ${e.meaning}` }));
const CATEGORY_OPTIONS = Object.entries(categoryLabels).map(([value, label]) => ({ value, label }));
const ORDER_OPTIONS = [
  { value: 'newest', label: 'Newest first' },
  { value: 'oldest', label: 'Oldest first' },
];

interface Props {
  domain: Pick<TransactionListDomain, 'filterLabel' | 'searchPlaceholder' | 'statusOptions' | 'methodOptions' | 'reasons'>;
  filters: TransactionFilters;
  onChange: (next: TransactionFilters) => void;
  fieldErrors: Record<string, string>;
}

/** A transaction list's filters. Memoised: the list around it re-renders with every page, count and live row; the filters change only with the route. */
export const TransactionFilterBar = memo(function TransactionFilterBar({ domain, filters, onChange, fieldErrors }: Props) {
  const set = <K extends keyof TransactionFilters>(key: K, value: TransactionFilters[K]) => onChange({ ...filters, [key]: value });
  const [search, typeSearch] = useDebouncedSearch(filters.search, (value) => onChange({ ...filters, search: value }));
  const statusOptions = useMemo(() => withChosen(domain.statusOptions, filters.statusCodes), [domain.statusOptions, filters.statusCodes]);
  const currencyOptions = useMemo(() => [...new Set([...CURRENCY_OPTIONS, ...filters.currencies])], [filters.currencies]);

  return (
    <Group gap="sm" align="flex-start" role="search" aria-label={domain.filterLabel}>
      <TextInput label="Search" placeholder={domain.searchPlaceholder} value={search} onChange={(event) => typeSearch(event.currentTarget.value)} error={fieldErrors.search} w={260} />
      <MultiSelect label="Status" placeholder={filters.statusCodes.length ? undefined : 'Any status'} data={statusOptions} value={filters.statusCodes} onChange={(v) => set('statusCodes', v)} searchable clearable w={240} comboboxProps={{ width: 360, position: 'bottom-start' }} error={fieldErrors.statusCodes} />
      {domain.reasons && (
        <MultiSelect label="Reason" placeholder={filters.reasonCodes.length ? undefined : 'Any reason'} data={withChosen(REASON_OPTIONS, filters.reasonCodes)} value={filters.reasonCodes} onChange={(v) => set('reasonCodes', v)} searchable clearable w={200} comboboxProps={{ width: 420, position: 'bottom-start' }} />
      )}
      <MultiSelect label="Category" placeholder={filters.categories.length ? undefined : 'Any category'} data={CATEGORY_OPTIONS} value={filters.categories} onChange={(v) => set('categories', v as StatusCategoryView[])} clearable w={190} />
      <MultiSelect label="Method" placeholder={filters.methods.length ? undefined : 'Any method'} data={withChosen(domain.methodOptions, filters.methods)} value={filters.methods} onChange={(v) => set('methods', v)} clearable w={220} />
      <MultiSelect label="Currency" placeholder={filters.currencies.length ? undefined : 'Any currency'} data={currencyOptions} value={filters.currencies} onChange={(v) => set('currencies', v)} searchable clearable w={150} error={fieldErrors.currencies} />
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
      <Select label="Order" data={ORDER_OPTIONS} value={filters.sort} onChange={(v) => v && set('sort', v as SortOrder)} allowDeselect={false} w={140} />
      <Checkbox label="Only mismatches" checked={filters.hasMismatch} onChange={(event) => set('hasMismatch', event.currentTarget.checked)} mt={32} />
      {hasAnyFilter(filters) && (
        <Button variant="subtle" onClick={() => onChange({ ...NO_FILTERS, sort: filters.sort })} mt={25}>
          Clear filters
        </Button>
      )}
    </Group>
  );
});
