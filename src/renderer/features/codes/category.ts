import type { CodeCategory } from '../../../shared/spec/codes';

export const categoryColors: Record<CodeCategory | 'unknown', string> = {
  pending: 'blue',
  success: 'teal',
  customer_error: 'orange',
  decline: 'red',
  validation: 'grape',
  merchant_setup: 'yellow',
  system: 'gray',
  unknown: 'dark',
};

export const categoryLabels: Record<CodeCategory | 'unknown', string> = {
  pending: 'Pending',
  success: 'Success',
  customer_error: 'Customer error',
  decline: 'Decline',
  validation: 'Validation',
  merchant_setup: 'Merchant setup',
  system: 'System',
  unknown: 'Unknown',
};
