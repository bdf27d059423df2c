// Public entry of the gateway emulator (used in-process by Paydesk's main process and by tests).
export { startEmulator } from './start';
export type { EmulatorHandle, EmulatorOptions, MerchantCredentials, DeliverySchedule, RateLimit, ScenarioTiming, HttpLimits } from './options';
export { DEFAULT_DELIVERY_SCHEDULE, DEFAULT_RATE_LIMIT, DEFAULT_SCENARIO_TIMING, DEFAULT_HTTP_LIMITS } from './options';
export type { Clock, Ids, Logger } from './runtime';
export { delayBeforeAttempt } from './notify/schedule';
export { ERROR_CODES, VALIDATION_ERROR_CODES } from './api/error-codes';
