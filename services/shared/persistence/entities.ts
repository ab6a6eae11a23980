/** The explicit entity list: MikroORM discovers nothing by folder scanning. */
import { Organization } from '../../tenancy/organization.entity.ts';
import { Company } from '../../tenancy/company.entity.ts';
import { ApiKey } from '../../tenancy/api-key.entity.ts';
import { RequestLogEntry } from '../../requests/request-log-entry.entity.ts';
import { IdempotencyRecord } from '../../idempotency/idempotency-record.entity.ts';
import { DocumentQuotaUsage } from '../../limits/document-quota-usage.entity.ts';
import { Event } from '../../events/event.entity.ts';
import { Webhook } from '../../webhooks/webhook.entity.ts';
import { WebhookDelivery } from '../../webhooks/delivery.entity.ts';
import { ScheduledJob } from '../scheduler/scheduled-job.entity.ts';
import { CompanyClock } from './company-clock.entity.ts';
import { TechnicalAccount } from '../../identity/technical-account.entity.ts';
import { Membership } from '../../identity/membership.entity.ts';
import { Integration } from '../../identity/integration.entity.ts';
import { SigningKey } from '../../identity/signing-key.entity.ts';
import { IssuedToken } from '../../identity/issued-token.entity.ts';
import { AgentAuthorization, HandoffToken } from '../../identity/agent-grant.entity.ts';
import { Document } from '../../documents/document.entity.ts';
import { Partner } from '../../partners/partner.entity.ts';
import { PortabilityMessage } from '../../portability-messages/portability-message.entity.ts';
import { PeppolReportSubmission } from '../../reporting/report-submission.entity.ts';
import { Payment } from '../../payments/payment.entity.ts';
import { PaymentProfile } from '../../payments/payment-profile.entity.ts';
import { TagGroup, Tag, Tagging } from '../../categorization/tag.entity.ts';
import { PortabilityRequest, PortabilityEvidence, PortabilityFile, PortabilityRouting } from '../../portability/portability.entity.ts';
import { PunchOutSession } from '../../punchout/punchout-session.entity.ts';

export const entities = [Organization, Company, ApiKey, Event, Webhook, WebhookDelivery, ScheduledJob, CompanyClock, RequestLogEntry, IdempotencyRecord, DocumentQuotaUsage, TechnicalAccount, Membership, Integration, SigningKey, IssuedToken, AgentAuthorization, HandoffToken, Document, Partner, PeppolReportSubmission, Payment, PaymentProfile, TagGroup, Tag, Tagging, PortabilityMessage, PortabilityRequest, PortabilityEvidence, PortabilityFile, PortabilityRouting, PunchOutSession];
