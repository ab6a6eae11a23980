/**
 * Which webhooks get an event, and with what payload. Pure, so the rules are unit-tested alone.
 */
import { isLogOnly, type EventEnvelope } from '../events/events.contract.ts';

export interface HookView {
  companyId: string | null;
  events: readonly string[];
  livemode: boolean;
  status: string;
}

export interface EventFacts {
  type: string;
  livemode: boolean;
  companyId: string | null;
  data: Record<string, unknown>;
}

/** True when an active webhook subscribes to this event (log-only events never match). */
export function subscribes(hook: HookView, event: EventFacts): boolean {
  if (hook.status !== 'active' || hook.livemode !== event.livemode || isLogOnly(event.type)) return false;
  if (hook.companyId !== null && hook.companyId !== event.companyId) return false;
  return hook.events.some((name) =>
    name === '*' || name === event.type || (name === 'compliance.reported.failed' && event.type === 'compliance.reported' && event.data.status === 'failed'));
}

/**
 * The body sent to a webhook. A platform-level webhook (no company of its own) gets
 * `data.company.id` and the tenant `metadata` added.
 */
export function payloadFor(hook: { companyId: string | null }, envelope: EventEnvelope, tenant?: { id: string; metadata: Record<string, unknown> | null }): EventEnvelope {
  if (hook.companyId !== null || !tenant) return envelope;
  const company = { ...(envelope.data.company as Record<string, unknown> | undefined), id: tenant.id };
  return { ...envelope, data: { ...envelope.data, company, metadata: tenant.metadata ?? {} } };
}

/** Delay before attempt n+1 after attempt n failed (spec: 30 s, 2 min, 10 min, 30 min, 2 h, 6 h, 12 h). */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 1_800, 7_200, 21_600, 43_200] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** When attempt `attempt` (1-based) has failed: seconds until the next one, or null after the last. */
export function retryDelayAfter(attempt: number): number | null {
  return attempt >= MAX_ATTEMPTS ? null : RETRY_DELAYS_SECONDS[attempt - 1]!;
}
