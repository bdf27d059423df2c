import type { ApprovalState } from '../../../shared/contract';

/** How each approval state reads, in the list and the detail alike. */
export const STATE_LABELS: Record<ApprovalState, { label: string; color: string }> = {
  awaiting: { label: 'Awaiting approval', color: 'yellow' },
  approved: { label: 'Approved', color: 'teal' },
  rejected: { label: 'Rejected', color: 'red' },
  expired: { label: 'Expired', color: 'gray' },
  withdrawn: { label: 'Withdrawn', color: 'gray' },
  voided: { label: 'Void', color: 'gray' },
};
