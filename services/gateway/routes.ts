/**
 * The complete list of contracts the gateway exposes. Adding a service's contract module here is
 * the only step that publishes its HTTP-bound actions (restricted mapping: nothing else is
 * reachable from outside).
 */
import type { ActionContract } from '../shared/contract.ts';
import * as gateway from './gateway.contract.ts';
import * as tenancy from '../tenancy/tenancy.contract.ts';
import * as sandbox from '../sandbox/sandbox.contract.ts';
import * as health from '../health/health.contract.ts';
import * as validation from '../validation/validation.contract.ts';
import * as documents from '../documents/documents.contract.ts';
import * as archive from '../documents/archive.contract.ts';
import * as artefactHolds from '../documents/artefacts.contract.ts';
import * as requests from '../requests/requests.contract.ts';
import * as idempotency from '../idempotency/idempotency.contract.ts';
import * as rateLimit from './rate-limit.contract.ts';
import * as identity from '../identity/identity.contract.ts';
import * as agentAccess from '../identity/agent-access.contract.ts';
import * as events from '../events/events.contract.ts';
import * as webhooks from '../webhooks/webhooks.contract.ts';
import * as clock from '../clock/clock.contract.ts';
import * as directory from '../directory/directory.contract.ts';
import * as partners from '../partners/partners.contract.ts';
import * as smp from '../smp/smp.contract.ts';
import * as reporting from '../reporting/reporting.contract.ts';
import * as compliance from '../compliance/compliance.contract.ts';
import * as platform from '../platform/platform.contract.ts';
import * as stats from '../stats/stats.contract.ts';
import * as payments from '../payments/payments.contract.ts';
import * as categorization from '../categorization/categorization.contract.ts';
import * as generator from '../generator/generator.contract.ts';
import * as portabilityMessages from '../portability-messages/portability-messages.contract.ts';
import * as portability from '../portability/portability.contract.ts';
import * as orders from '../orders/orders.contract.ts';
import * as punchout from '../punchout/punchout.contract.ts';

type AnyContract = ActionContract<unknown, unknown>;

function contractsOf(module: Record<string, unknown>): AnyContract[] {
  return Object.values(module).filter((v): v is AnyContract => typeof v === 'object' && v !== null && 'action' in v && 'params' in v);
}

export const CONTRACTS: readonly AnyContract[] = [gateway, tenancy, sandbox, health, validation, documents, requests, idempotency, rateLimit, identity, agentAccess, events, webhooks, clock, directory, partners, smp, reporting, compliance, platform, stats, payments, categorization, generator, portabilityMessages, portability, archive, artefactHolds, orders, punchout].flatMap(contractsOf);

export const HTTP_CONTRACTS: readonly AnyContract[] = CONTRACTS.filter((c) => c.http !== undefined);
