// The screens of PRODUCT.md capability 6, in navigation order.
export const screens = [
  { id: 'payins', label: 'Pay-ins', description: 'Every pay-in in the ledger: search, filter, open the timeline.' },
  { id: 'payouts', label: 'Payouts', description: 'Manual payouts and CSV batches, with a review step that cannot be skipped.' },
  { id: 'reconciliation', label: 'Reconciliation', description: 'Totals by day, currency and method; every mismatch, exportable.' },
  { id: 'codes', label: 'Code explorer', description: 'Every status and reason code: meaning, category, retry advice.' },
  { id: 'webhooks', label: 'Webhook inspector', description: 'Every notification received, raw, with its outcome.' },
  { id: 'playground', label: 'Sandbox playground', description: 'Build, send and follow test requests against the gateway.' },
  { id: 'settings', label: 'Settings', description: 'Profiles, credentials, keys, listener, limits and theme.' },
] as const;

export type ScreenId = (typeof screens)[number]['id'];

export function isScreenId(value: string): value is ScreenId {
  return screens.some((screen) => screen.id === value);
}
