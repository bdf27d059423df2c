// Rules about payout amounts, one per environment and currency (the payout limits, the approval
// policies): their table, with Edit and Remove for who may change them, and the form that sets
// one. Each use gives the columns and fields of its own amounts; the rest is here.
import { Button, Card, Group, Select, Table, TextInput, Title } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { RULE_ENVIRONMENT_LABELS, type RuleEnvironment } from '../../shared/contract';
import { FormError } from './FormError';
import { RowTable } from './RowTable';
import type { ActionState } from './use-action';

interface Rule {
  environment: RuleEnvironment;
  currency: string;
}

export interface RuleColumn<R> {
  header: string;
  /** An amount: right-aligned, in monospace. */
  amount?: boolean;
  cell: (rule: R) => ReactNode;
}

export function AmountRulesTable<R extends Rule>(props: {
  /** The table's name. */
  label: string;
  /** What one rule is called on its buttons: "Edit the EUR limit (Live)". */
  noun: string;
  /** The attribute that names a row by its currency and environment (data-limit="EUR/live"). */
  rowAttribute: `data-${string}`;
  rules: readonly R[];
  columns: readonly RuleColumn<R>[];
  mayChange: boolean;
  onEdit: (rule: R) => void;
  onRemove: (rule: R) => void;
  removing: boolean;
  highlightOnHover?: boolean;
}) {
  const { noun, columns } = props;
  return (
    <RowTable
      aria-label={props.label}
      highlightOnHover={props.highlightOnHover}
      headings={['Currency', 'Environment', ...columns.map((column) => ({ label: column.header, ta: column.amount ? ('right' as const) : undefined })), '']}
      items={props.rules}
      row={(rule) => {
        const where = RULE_ENVIRONMENT_LABELS[rule.environment];
        return (
          <Table.Tr key={`${rule.currency}-${rule.environment}`} {...{ [props.rowAttribute]: `${rule.currency}/${rule.environment}` }}>
            <Table.Td fw={500}>{rule.currency}</Table.Td>
            <Table.Td>{where}</Table.Td>
            {columns.map((column) => (
              <Table.Td key={column.header} {...(column.amount ? { ta: 'right', ff: 'monospace' } : {})}>
                {column.cell(rule)}
              </Table.Td>
            ))}
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap" hidden={!props.mayChange}>
                <Button size="xs" variant="default" onClick={() => props.onEdit(rule)} aria-label={`Edit the ${rule.currency} ${noun} (${where})`}>
                  Edit
                </Button>
                <Button size="xs" variant="subtle" color="red" loading={props.removing} aria-label={`Remove the ${rule.currency} ${noun} (${where})`} onClick={() => props.onRemove(rule)}>
                  Remove
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        );
      }}
    />
  );
}

/** The form that sets a rule: its environment and currency, then `children` (its amounts), then the submit button. */
export function AmountRuleForm(props: {
  /** The form's name. */
  label: string;
  /** Set: the form is a card of its own with this title. */
  title?: string;
  /** The environments offered, in this order. */
  environments: readonly RuleEnvironment[];
  draft: Rule;
  set: (key: keyof Rule, value: string) => void;
  save: ActionState;
  submitLabel: string;
  onSubmit: () => void;
  widths: { environment: number; currency: number };
  children: ReactNode;
}) {
  const { draft, set, save } = props;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  const fields = (
    <>
      <Group align="flex-start" gap="sm">
        <Select
          label="Environment"
          data={props.environments.map((value) => ({ value, label: RULE_ENVIRONMENT_LABELS[value] }))}
          value={draft.environment}
          onChange={(v) => v && set('environment', v)}
          allowDeselect={false}
          w={props.widths.environment}
          error={save.fieldErrors.environment}
        />
        <TextInput label="Currency" placeholder="EUR" value={draft.currency} onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())} w={props.widths.currency} maxLength={3} error={save.fieldErrors.currency} withAsterisk />
        {props.children}
        <Button type="submit" mt={25} loading={save.busy}>
          {props.submitLabel}
        </Button>
      </Group>
      <FormError action={save} />
    </>
  );
  return props.title ? (
    <Card withBorder component="form" onSubmit={submit} aria-label={props.label}>
      <Title order={5} mb="sm">
        {props.title}
      </Title>
      {fields}
    </Card>
  ) : (
    <form aria-label={props.label} onSubmit={submit}>
      {fields}
    </form>
  );
}

/** One amount of a rule, typed in monospace. */
export function RuleAmountInput(props: { label: string; placeholder: string; value: string; onChange: (value: string) => void; w: number; error: string | undefined }) {
  return <TextInput label={props.label} placeholder={props.placeholder} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)} w={props.w} error={props.error} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />;
}
