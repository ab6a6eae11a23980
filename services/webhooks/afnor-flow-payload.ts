/**
 * Deliveries of AFNOR XP Z12-013 flow subscriptions (webhooks of format `afnor-flow`, made under
 * /afnor/): the body is the annex's callback content, the `Flow` of the event's document (its
 * invoice flow for document events, the flow of the announced step for lifecycle.updated), built by
 * the same mapping the /afnor/ routes answer with. The documents are read once per fan-out page.
 */
import type { ServiceBroker, Context } from 'moleculer';
import { call } from '../shared/call.ts';
import { flowFacts, type DocumentView, type LifecycleView } from '../documents/documents.contract.ts';
import type { EventEnvelope } from '../events/events.contract.ts';
import { documentFlow, lifecycleFlows, type Flow } from '../../mappings/index.ts';

export type FlowFacts = Map<string, { document: DocumentView; lifecycle: LifecycleView }>;

/** The flow an event announces to a flow subscriber; undefined when it announces none (that delivery is not made). */
export function flowPayload(envelope: EventEnvelope, facts: FlowFacts): Flow | undefined {
  const documentId = envelope.data.documentId;
  const found = typeof documentId === 'string' ? facts.get(documentId) : undefined;
  if (!found) return undefined;
  if (envelope.type === 'lifecycle.updated') {
    const flows = lifecycleFlows(found.document, found.lifecycle);
    const history = found.lifecycle.history;
    for (let step = history.length - 1; step >= 0; step--) if (String(history[step]!.code) === envelope.data.currentStatus) return flows[step];
    return undefined;
  }
  return envelope.type.startsWith('document.') ? documentFlow(found.document) : undefined;
}

/** The documents of these events, for the organizations that have flow subscribers among `hooks`. */
export async function flowFactsOf(
  caller: ServiceBroker | Context, events: ReadonlyArray<{ envelope: EventEnvelope; organizationId: string }>, hooks: ReadonlyArray<{ organizationId: string; format: string }>,
): Promise<FlowFacts> {
  const subscribed = new Set(hooks.filter((h) => h.format === 'afnor-flow').map((h) => h.organizationId));
  const byOrganization = new Map<string, Set<string>>();
  for (const { envelope, organizationId } of events) {
    const id = envelope.data.documentId;
    if (!subscribed.has(organizationId) || typeof id !== 'string') continue;
    byOrganization.set(organizationId, (byOrganization.get(organizationId) ?? new Set()).add(id));
  }
  const facts: FlowFacts = new Map();
  for (const [organizationId, ids] of byOrganization) {
    for (const f of await call(caller, flowFacts, { organizationId, ids: [...ids] })) facts.set(f.document.id, f);
  }
  return facts;
}
