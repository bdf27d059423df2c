// Channel names alone, free of schema code, so the sandboxed preload stays tiny.
// contract.ts checks at compile time that its entries are exactly these.
export const invokeChannels = ['app:get-info', 'settings:get', 'settings:update'] as const;
export const pushChannels = ['settings:settings-changed'] as const;

export type InvokeChannel = (typeof invokeChannels)[number];
export type PushChannel = (typeof pushChannels)[number];
