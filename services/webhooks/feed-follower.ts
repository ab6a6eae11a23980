/**
 * Fan-out: follows the committed event feed (`events.readFeed`) with this service's own cursor
 * (`webhook_feed_cursors`) and turns each event into one delivery per subscribed webhook, with its
 * first due-time row. The page and the tenants are read before any transaction opens; the
 * deliveries, their jobs and the cursor then commit together, and the cursor moves only if it is
 * still where the page began. A replica that got there first wins and this page is read again, so
 * every event is fanned out exactly once and no transaction spans a remote call.
 */
import type { ServiceBroker } from 'moleculer';
import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { call } from '../shared/call.ts';
import { newId } from '../shared/ids.ts';
import { clockOffsetsOf, systemClock } from '../shared/clock.ts';
import { insertJobs, type JobInput } from '../shared/scheduler/scheduler.ts';
import { readFeed, type FeedCursor, type FeedEvent } from '../events/events.contract.ts';
import { companiesByIds, type CompanyRef } from '../tenancy/tenancy.contract.ts';
import { Webhook } from './webhook.entity.ts';
import { WebhookDelivery } from './delivery.entity.ts';
import { payloadFor, subscribes } from './fan-out.ts';
import { flowFactsOf, flowPayload } from './afnor-flow-payload.ts';
import { DELIVER_JOB } from './webhooks.contract.ts';

const CONSUMER = 'webhooks';

export interface FanOutResult {
  /** Events taken from the feed (0: nothing new, or another replica took this page). */
  events: number;
  deliveries: number;
  /** False when another replica moved the cursor first: read again. */
  won: boolean;
}

async function readCursor(em: EntityManager): Promise<FeedCursor> {
  const select = () => em.execute<Array<{ tx_id: string; event_id: string | null }>>(
    `select tx_id::text as tx_id, event_id from webhook_feed_cursors where consumer = ?`, [CONSUMER], 'all');
  let rows = await select();
  if (!rows.length) {
    // The migration creates the row; a database that lost it starts over from the beginning.
    await em.execute(`insert into webhook_feed_cursors (consumer, tx_id, event_id, updated_at) values (?, 0, null, ?) on conflict do nothing`, [CONSUMER, systemClock.now()], 'run');
    rows = await select();
  }
  return { txId: rows[0]!.tx_id, eventId: rows[0]!.event_id };
}

/** The tenants platform-level webhooks need in their payload (`data.company`, `metadata`). */
async function tenantsOf(broker: ServiceBroker, events: FeedEvent[], hooks: Webhook[]): Promise<Map<string, CompanyRef>> {
  const ids = [...new Set(events.map((e) => e.companyId).filter((c): c is string => !!c))];
  if (!ids.length || !hooks.some((h) => h.companyId === null)) return new Map();
  return new Map((await call(broker, companiesByIds, { ids })).map((c) => [c.id, c]));
}

/** Takes one page of the feed and fans it out; see the module comment. */
export async function fanOutPage(broker: ServiceBroker, em: EntityManager, limit: number): Promise<FanOutResult> {
  const from = await readCursor(em);
  const page = await call(broker, readFeed, { after: from, limit });
  if (!page.events.length) return { events: 0, deliveries: 0, won: true };

  const hooks = await em.find(Webhook, { organizationId: { $in: [...new Set(page.events.map((e) => e.organizationId))] }, status: 'active' });
  const tenants = await tenantsOf(broker, page.events, hooks);
  const flows = await flowFactsOf(broker, page.events, hooks);
  const offsets = await clockOffsetsOf(em, page.events.map((e) => e.companyId).filter((c): c is string => !!c));
  const wall = systemClock.now();
  const deliveries: Array<RequiredEntityData<WebhookDelivery>> = [];
  const jobs: JobInput[] = [];
  for (const { envelope, organizationId, companyId } of page.events) {
    const facts = { type: envelope.type, livemode: envelope.livemode, companyId, data: envelope.data };
    for (const hook of hooks) {
      if (hook.organizationId !== organizationId || !subscribes({ ...hook, companyId: hook.companyId ?? null }, facts)) continue;
      const tenant = companyId ? tenants.get(companyId) : undefined;
      // An AFNOR flow subscriber gets the flow the event announces (and nothing when it announces none).
      const payload = hook.format === 'afnor-flow' ? flowPayload(envelope, flows) : payloadFor({ companyId: hook.companyId ?? null }, envelope, tenant);
      if (payload === undefined) continue;
      // Due at once, in the company's business time.
      const dueAt = new Date(wall.getTime() + (offsets.get(companyId ?? '') ?? 0) * 1000);
      const id = newId('delivery');
      deliveries.push({
        id, webhook: hook.id, organizationId, companyId, eventId: envelope.id, eventType: envelope.type, payload: JSON.stringify(payload),
        status: 'pending', attempts: 0, attemptsStarted: 0, attemptLog: [], test: false, nextAttemptAt: dueAt, lastStatusCode: null, lastLatencyMs: null,
        lastError: null, deliveredAt: null, createdAt: wall, updatedAt: wall,
      });
      jobs.push({ kind: DELIVER_JOB, ref: id, companyId, dueAt });
    }
  }

  const won = await em.fork().transactional(async (tx) => {
    const moved = await tx.execute<{ affectedRows?: number }>(
      `update webhook_feed_cursors set tx_id = ?::bigint, event_id = ?, updated_at = ? where consumer = ? and tx_id = ?::bigint and event_id is not distinct from ?`,
      [page.cursor.txId, page.cursor.eventId, wall, CONSUMER, from.txId, from.eventId], 'run');
    if (!moved.affectedRows) return false;
    if (deliveries.length) await tx.insertMany(WebhookDelivery, deliveries);
    await insertJobs(tx, jobs);
    return true;
  });
  return won ? { events: page.events.length, deliveries: deliveries.length, won } : { events: 0, deliveries: 0, won };
}
