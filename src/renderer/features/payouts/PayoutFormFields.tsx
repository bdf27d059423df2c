import { SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import type { PayoutMethod } from '../../../shared/spec/methods';
import { payoutFields, type FieldGroup } from './form-fields';
import type { FormValues } from './validate';

const GROUP_TITLES: Record<FieldGroup, string> = { payment: 'Payment', beneficiary: 'Beneficiary', destination: 'Destination' };

interface PayoutFormFieldsProps {
  method: PayoutMethod;
  values: FormValues;
  /** Field path → problem to show now. */
  errors: Record<string, string>;
  onChange: (path: string, value: string) => void;
  onBlur: (path: string) => void;
}

/** The method's inputs, from the shared field table, each labelled and with its rule as help text. */
export function PayoutFormFields({ method, values, errors, onChange, onBlur }: PayoutFormFieldsProps) {
  const fields = payoutFields(method);
  return (
    <Stack gap="md">
      {(Object.keys(GROUP_TITLES) as FieldGroup[]).map((group) => (
        <Stack key={group} gap="xs">
          <Title order={5}>{GROUP_TITLES[group]}</Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="xs">
            {fields
              .filter((field) => field.group === group)
              .map((field) => (
                <TextInput
                  key={field.path}
                  id={`payout-${field.path}`}
                  name={field.path}
                  label={field.label}
                  description={field.description}
                  withAsterisk={field.required}
                  value={values[field.path] ?? ''}
                  error={errors[field.path]}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(event) => onChange(field.path, field.upperCase ? event.currentTarget.value.toUpperCase() : event.currentTarget.value)}
                  onBlur={() => onBlur(field.path)}
                  styles={field.group === 'destination' || field.path === 'amount' ? { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } : undefined}
                />
              ))}
          </SimpleGrid>
        </Stack>
      ))}
    </Stack>
  );
}
