// How each status category looks: the categories themselves are the catalogue's (STATUS_CATEGORIES).
import type { StatusCategory } from '../../../shared/spec/codes';

export const categoryColors: Record<StatusCategory, string> = {
  pending: 'blue',
  success: 'teal',
  customer_error: 'orange',
  decline: 'red',
  validation: 'grape',
  merchant_setup: 'yellow',
  system: 'gray',
  unknown: 'dark',
};

export const categoryLabels: Record<StatusCategory, string> = {
  pending: 'Pending',
  success: 'Success',
  customer_error: 'Customer error',
  decline: 'Decline',
  validation: 'Validation',
  merchant_setup: 'Merchant setup',
  system: 'System',
  unknown: 'Unknown',
};
