// Delivery faults switched on through the admin API, to test merchants' listeners against
// delayed, duplicated, out-of-order and failing notifications.

export type FailMode = 'drop' | 'abort' | 'wrong_status';

export interface NotificationFaults {
  /** Extra delay before every first attempt. */
  delay_ms: number;
  /** After a delivery succeeds, send it this many more times (same body, same delivery id). */
  duplicate: number;
  /** Hold new deliveries for reorder_window_ms, then send the held batch newest first. */
  reorder: boolean;
  reorder_window_ms: number;
  /**
   * The next fail_next attempts fail on purpose and are retried on schedule:
   * drop = never sent (as a connection failure); abort = connection cut mid-body;
   * wrong_status = not sent, recorded as an HTTP 503 from an intermediary.
   */
  fail_next: number;
  fail_mode: FailMode;
}

export const NO_FAULTS: NotificationFaults = {
  delay_ms: 0,
  duplicate: 0,
  reorder: false,
  reorder_window_ms: 1_000,
  fail_next: 0,
  fail_mode: 'drop',
};

export interface ApiFaults {
  /** The next N create calls answer HTTP 500 / 501 SYSTEM_ERROR (the key is not consumed). */
  create_errors: number;
  /** The next N get-status reads answer 429 whatever the bucket holds. */
  force_rate_limit: number;
}

export const NO_API_FAULTS: ApiFaults = { create_errors: 0, force_rate_limit: 0 };

/** Mutable holder passed to the notifier and the API; the admin API edits it. */
export class FaultState {
  notifications: NotificationFaults = { ...NO_FAULTS };
  api: ApiFaults = { ...NO_API_FAULTS };

  reset(): void {
    this.notifications = { ...NO_FAULTS };
    this.api = { ...NO_API_FAULTS };
  }

  /** Consumes one injected delivery failure, if any is armed. */
  takeDeliveryFailure(): FailMode | undefined {
    if (this.notifications.fail_next <= 0) return undefined;
    this.notifications.fail_next--;
    return this.notifications.fail_mode;
  }

  takeCreateError(): boolean {
    if (this.api.create_errors <= 0) return false;
    this.api.create_errors--;
    return true;
  }

  takeForcedRateLimit(): boolean {
    if (this.api.force_rate_limit <= 0) return false;
    this.api.force_rate_limit--;
    return true;
  }
}
