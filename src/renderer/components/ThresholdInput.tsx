import { NumberInput, type NumberInputProps } from '@mantine/core';

/** A list's threshold: a whole number from 0 up to its max; a cleared box reads NaN, which the list's check refuses. */
export function ThresholdInput({ onChange, ...input }: Omit<NumberInputProps, 'onChange' | 'min' | 'allowDecimal'> & { onChange: (value: number) => void }) {
  return <NumberInput min={0} allowDecimal={false} {...input} onChange={(value) => onChange(typeof value === 'number' ? value : Number.NaN)} />;
}
