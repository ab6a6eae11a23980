/**
 * The timing every scheduled call to a connector shares (a delivery, a follow-up): how long the
 * call may take, and when a transient failure is tried again.
 */
import { loadConfig } from '../shared/config.ts';

/** A transient failure after attempt n is tried again after this long: doubling from EINV_DELIVERY_RETRY_MS, at most 6 h. */
export function retryDelayMs(attempt: number): number {
  return Math.min(loadConfig().documents.deliveryRetryMs * 2 ** (attempt - 1), 6 * 3_600_000);
}

/** How long a connector may take to answer: within the job's lease, so nobody else claims the job meanwhile. */
export function connectorCallTimeoutMs(): number {
  const cfg = loadConfig();
  return Math.max(1_000, Math.min(cfg.documents.deliveryTimeoutMs, cfg.events.schedulerLeaseMs - 5_000));
}
