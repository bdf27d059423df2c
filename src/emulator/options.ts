// Options of startEmulator and their defaults. The CLI maps its flags onto these.
import type { FeeSchedule } from './domain/settlement/fees';
import type { Clock, Ids, Logger } from './runtime';

export interface MerchantCredentials {
  merchant_id: string;
  merchant_site_id: string;
  merchant_token: string;
}

/**
 * Notification delivery schedule. Attempt 1 runs firstAttemptDelayMs after the event; after a
 * failure, retry k (k = 1, 2, ...) waits min(firstRetryDelayMs * backoffFactor^(k-1), maxDelayMs).
 * A delivery is abandoned after maxAttempts attempts in all.
 */
export interface DeliverySchedule {
  firstAttemptDelayMs: number;
  firstRetryDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
  maxAttempts: number;
  /** One attempt fails if the receiver has not answered within this time. */
  attemptTimeoutMs: number;
}

export const DEFAULT_DELIVERY_SCHEDULE: DeliverySchedule = {
  firstAttemptDelayMs: 100,
  firstRetryDelayMs: 2_000,
  backoffFactor: 2,
  maxDelayMs: 600_000,
  maxAttempts: 12,
  attemptTimeoutMs: 10_000,
};

/** get-status token bucket, per merchant, pay-ins and payouts counted apart. */
export interface RateLimit {
  burst: number;
  refillPerSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { burst: 20, refillPerSecond: 10 };

/** When automatic scenarios move. Defaults keep PRODUCT.md's promises (2 s pay-in, 5 s payout). */
export interface ScenarioTiming {
  payinCompleteMs: number;
  payoutProcessingMs: number;
  payoutFinalMs: number;
}

export const DEFAULT_SCENARIO_TIMING: ScenarioTiming = { payinCompleteMs: 300, payoutProcessingMs: 300, payoutFinalMs: 1_000 };

export interface HttpLimits {
  bodyLimitBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  bodyLimitBytes: 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** Settlement of successful pay-ins (docs/emulator.md, "Settlement"). */
export interface SettlementOptions {
  /** Length of a settlement period, 1 s to 1 day (DEFAULT_SETTLEMENT_PERIOD_MS, a UTC day). */
  periodMs: number;
  /** Fee rates per pay-in method that replace DEFAULT_FEES (kept with the state). */
  fees: Partial<FeeSchedule>;
  /** Refuse (C405) a payout larger than its wallet's balance; undefined keeps the stored setting (off by default). */
  enforceWalletBalance: boolean;
}

export interface EmulatorOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** SQLite file; in memory when absent. */
  dataFile?: string;
  /** Fixed credentials; otherwise generated once and persisted with the state. */
  merchant?: Partial<MerchantCredentials>;
  clock?: Clock;
  ids?: Ids;
  delivery?: Partial<DeliverySchedule>;
  rateLimit?: Partial<RateLimit>;
  scenarioTiming?: Partial<ScenarioTiming>;
  http?: Partial<HttpLimits>;
  settlement?: Partial<SettlementOptions>;
  /** No info logs (warnings and errors still go to stderr). */
  quiet?: boolean;
  logger?: Logger;
}

export interface EmulatorHandle {
  /** http://host:port/api/v2 */
  baseUrl: string;
  /** http://host:port/_emulator */
  adminUrl: string;
  /** http://host:port/pay (a pay-in's page is hostedUrl/{payin_id}) */
  hostedUrl: string;
  port: number;
  merchant: MerchantCredentials;
  close(): Promise<void>;
}
