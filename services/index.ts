/**
 * The service catalogue: every service a process can run, by name. `SERVICES=gateway,health`
 * runs just those (one role per container); unset runs them all in one process. The
 * `adapter.<id>` services come from configuration (EINV_CONNECTORS), one per enabled connector.
 */
import type { ServiceSchema } from 'moleculer';
import GatewayService from './gateway/gateway.service.ts';
import TenancyService from './tenancy/tenancy.service.ts';
import SandboxService from './sandbox/sandbox.service.ts';
import HealthService from './health/health.service.ts';
import ValidationService from './validation/validation.service.ts';
import DocumentsService from './documents/documents.service.ts';
import DirectoryService from './directory/directory.service.ts';
import PartnersService from './partners/partners.service.ts';
import SmpService from './smp/smp.service.ts';
import RequestsService from './requests/requests.service.ts';
import IdempotencyService from './idempotency/idempotency.service.ts';
import LimitsService from './limits/limits.service.ts';
import IdentityService from './identity/identity.service.ts';
import EventsService from './events/events.service.ts';
import WebhooksService from './webhooks/webhooks.service.ts';
import ClockService from './clock/clock.service.ts';
import ReportingService from './reporting/reporting.service.ts';
import ComplianceService from './compliance/compliance.service.ts';
import PlatformService from './platform/platform.service.ts';
import StatsService from './stats/stats.service.ts';
import PaymentsService from './payments/payments.service.ts';
import CategorizationService from './categorization/categorization.service.ts';
import GeneratorService from './generator/generator.service.ts';
import MailService from './mail/mail.service.ts';
import PortabilityMessagesService from './portability-messages/portability-messages.service.ts';
import PortabilityService from './portability/portability.service.ts';
import OrdersService from './orders/orders.service.ts';
import PunchOutService from './punchout/punchout.service.ts';
import ConnectorStateService from './connectors/connector-state.service.ts';
import { connectorServices } from './connectors/discovery.ts';

export interface ServiceEntry {
  // Each schema types its own `this`; the catalogue only hands them to the broker.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  schema: ServiceSchema<any, any, any, any>;
  /** Needs the PostgreSQL database attached to its broker. */
  database: boolean;
}

export const SERVICE_CATALOGUE: Record<string, ServiceEntry> = {
  gateway: { schema: GatewayService, database: false },
  tenancy: { schema: TenancyService, database: true },
  // Its scheduler removes expired sandbox organizations (through the owning services).
  sandbox: { schema: SandboxService, database: true },
  // Health reads the database when one is attached to its process, to report it in readiness.
  health: { schema: HealthService, database: true },
  validation: { schema: ValidationService, database: false },
  // Send, receive, search, lifecycle; delivery runs on the scheduler and goes through adapter.* services.
  documents: { schema: DocumentsService, database: true },
  // Who is reachable: participant lookup for the connectors (SMP/SML discovery plugs in here).
  directory: { schema: DirectoryService, database: false },
  // An organization's counterparties, matched against the directory.
  partners: { schema: PartnersService, database: true },
  // This deployment's SMP: the read interface the network looks registered companies up in.
  smp: { schema: SmpService, database: false },
  requests: { schema: RequestsService, database: true },
  idempotency: { schema: IdempotencyService, database: true },
  limits: { schema: LimitsService, database: true },
  // Built-in OAuth issuer (integrations, signing keys, JWKS) and JWT → principal resolution.
  identity: { schema: IdentityService, database: true },
  // Outbox dispatcher and event log; webhook subscriptions and the delivery worker; sandbox clocks.
  events: { schema: EventsService, database: true },
  webhooks: { schema: WebhooksService, database: true },
  clock: { schema: ClockService, database: true },
  // Peppol Reporting: the month's TSR and EUSR on request (operator), and their submission on a cron.
  reporting: { schema: ReportingService, database: true },
  // Each country's e-invoicing mandate (shipped data file) and what the enabled connectors and rule packs support for it.
  compliance: { schema: ComplianceService, database: false },
  // Platform operation: one-call onboarding of a managed company, usage per tenant (asks the owning services).
  platform: { schema: PlatformService, database: false },
  // GET /v1/stats: a month's statistics assembled from the owning services' counts.
  stats: { schema: StatsService, database: false },
  // Payments against documents, companies' bank accounts and terms, the ISO 20022 pain.001 export.
  payments: { schema: PaymentsService, database: true },
  // Tag groups, tags on documents, companies and partners, and tag suggestions learned from the organization's history.
  categorization: { schema: CategorizationService, database: true },
  // The French UBL generator: JSON, UBL, CII or a stored document written as French reform UBL and judged by the French packs.
  generator: { schema: GeneratorService, database: false },
  // Outgoing mail (nodemailer SMTP): sends what others ask, outside their transactions, and the paused-webhook notification.
  mail: { schema: MailService, database: false },
  // French change of platform: the portability e-mails (logged, then mailed), the registry of approved platforms, access points, company suggestions.
  'portability-messages': { schema: PortabilityMessagesService, database: true },
  // France, change of approved platform: requests with their evidence chain and legal clocks, mandate signatures, routing switches, the annuaire.
  portability: { schema: PortabilityService, database: true },
  // Purchase orders (Peppol BIS Order 3.0) created and read over the documents service; no tables of its own.
  orders: { schema: OrdersService, database: false },
  // cXML PunchOut (buyer side): sessions at suppliers' catalogs, the returned cart made a purchase order.
  punchout: { schema: PunchOutService, database: true },
  // The connectors' durable state (SDK 2.5 `host.state`): adapter replicas share it through these actions.
  'connector-state': { schema: ConnectorStateService, database: true },
  // Enabled connectors (adapters/<id>) wrapped as services: the broker's circuit breaker guards each one.
  ...Object.fromEntries((await connectorServices()).map(([name, schema]) => [name, { schema, database: false }])),
};

export function selectServices(names: string[] | undefined): Array<[string, ServiceEntry]> {
  if (!names) return Object.entries(SERVICE_CATALOGUE);
  const unknown = names.filter((n) => !(n in SERVICE_CATALOGUE));
  if (unknown.length) throw new Error(`SERVICES names unknown services: ${unknown.join(', ')} (known: ${Object.keys(SERVICE_CATALOGUE).join(', ')})`);
  return names.map((n) => [n, SERVICE_CATALOGUE[n]!]);
}
