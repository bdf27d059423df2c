// Public entry of the gateway emulator (used in-process by Paydesk's main process and by tests).
export { startEmulator } from './start';
export type { EmulatorHandle, EmulatorOptions, MerchantCredentials, DeliverySchedule, RateLimit, ScenarioTiming, HttpLimits, SettlementOptions } from './options';
export { DEFAULT_DELIVERY_SCHEDULE, DEFAULT_RATE_LIMIT, DEFAULT_SCENARIO_TIMING, DEFAULT_HTTP_LIMITS } from './options';
export type { Clock, Ids, Logger } from './runtime';
export { delayBeforeAttempt } from './notify/schedule';
export { DEFAULT_FEES, type FeeRate, type FeeSchedule } from './domain/settlement/fees';
export { DEFAULT_SETTLEMENT_PERIOD_MS } from './domain/settlement/periods';
export { SETTLEMENT_REPORT_COLUMNS } from './reports/settlement-csv';
export { ERROR_CODES, VALIDATION_ERROR_CODES } from './api/error-codes';
