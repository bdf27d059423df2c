import { PasswordInput, SimpleGrid, TextInput } from '@mantine/core';
import type { FieldSpec } from './fields';
import { type FormObject, getField } from './request-json';

interface FieldInputsProps {
  fields: readonly FieldSpec[];
  form: FormObject;
  onChange: (path: string, value: string) => void;
  /** Field path → what main (or the gateway) said is wrong with it. */
  errors: Record<string, string>;
}

/** One input per field, labelled with the spec's own field name so errors and docs line up. */
export function FieldInputs({ fields, form, onChange, errors }: FieldInputsProps) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="xs">
      {fields.map((field) => {
        const common = {
          label: field.path,
          description: field.description,
          value: getField(form, field.path),
          error: errors[field.path],
          onChange: (event: React.ChangeEvent<HTMLInputElement>) => onChange(field.path, event.currentTarget.value),
          autoComplete: 'off',
          styles: { input: { fontFamily: 'var(--mantine-font-family-monospace)' } },
        };
        return field.secret ? <PasswordInput key={field.path} {...common} /> : <TextInput key={field.path} {...common} />;
      })}
    </SimpleGrid>
  );
}
