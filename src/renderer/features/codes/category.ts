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

/**
 * A code's category and meaning in one line (a status badge's hint), the category said once: "Success"
 * for 200, not "Success: Success"; "Declined due to risk decision" for 302, whose meaning names it.
 */
export function categoryAndMeaning(category: StatusCategory, meaning: string): string {
  const label = categoryLabels[category];
  // "Decline" is said by "Declined …": the stem of the label, without a final e.
  const stem = label.toLowerCase().replace(/e$/, '');
  return meaning.toLowerCase().startsWith(stem) ? meaning : `${label}: ${meaning}`;
}
