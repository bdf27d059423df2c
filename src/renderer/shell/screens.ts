import type { InvokeChannel } from '../../shared/contract';

// The screens of PRODUCT.md capability 6, in navigation order. `opens`: the call a screen cannot do
// without; on a team server a person whose role may not make it does not see the screen.
// `teamOnly`: a screen of the team server only (a desk has nobody to approve).
export const screens = [
  { id: 'payins', label: 'Pay-ins', description: 'Every pay-in in the ledger: search, filter, open the timeline.', opens: 'payins:list' },
  { id: 'payouts', label: 'Payouts', description: 'Manual payouts and CSV batches, with a review step that cannot be skipped.', opens: 'payouts:list' },
  { id: 'reconciliation', label: 'Reconciliation', description: 'Totals by day, currency and method; every mismatch, exportable.', opens: 'reconciliation:summary' },
  { id: 'codes', label: 'Code explorer', description: 'Every status and reason code: meaning, category, retry advice.', opens: 'codes:usage' },
  { id: 'webhooks', label: 'Webhook inspector', description: 'Every notification received, raw, with its outcome.', opens: 'notifications:list' },
  { id: 'approvals', label: 'Approvals', description: 'Payouts and batches the approval policy holds back, until a second person decides.', opens: 'approvals:list', teamOnly: true },
  { id: 'playground', label: 'Sandbox playground', description: 'Build, send and follow test requests against the gateway.', opens: 'payins:create' },
  { id: 'settings', label: 'Settings', description: 'Profiles, credentials, keys, listener, limits, theme, and the team.', opens: 'settings:get' },
] as const satisfies readonly { id: string; label: string; description: string; opens: InvokeChannel; teamOnly?: boolean }[];

export type ScreenId = (typeof screens)[number]['id'];

export function isScreenId(value: string): value is ScreenId {
  return screens.some((screen) => screen.id === value);
}
