/**
 * reporting: Peppol Reporting of this access point. The operator reads the month's TSR and EUSR
 * (GET /v1/peppol/reports/{month}/tsr|eusr); a cron (EINV_PEPPOL_REPORTING_CRON) submits the
 * previous month's pair to EINV_PEPPOL_REPORTING_URL once. Owns `peppol_report_submissions`.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import { schedule, type ScheduledTask } from 'node-cron';
import { OrmMixin } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { peppolReportingConfig } from '../shared/config.ts';
import { endUserStatisticsReport, submitReports, transactionStatisticsReport, type ReportKind } from './reporting.contract.ts';
import { buildReport, monthExchanges, seatIdOrFail } from './reports.ts';
import { submitReports as runSubmission } from './submission.ts';

type ResponseMeta = { $responseType?: string; $responseHeaders?: Record<string, string> };
type ReportingThis = Service & { cronTask?: ScheduledTask };

/** The report covers every organization: only the deployment's operator may read it. */
function operatorOnly(ctx: Context): boolean {
  const auth = principalOf(ctx);
  if (!peppolReportingConfig().operatorOrganizations.includes(auth.organizationId)) {
    throw new DomainError('ORGANIZATION_FORBIDDEN', 'Peppol reports cover every organization of this deployment: only its operator (EINV_OPERATOR_ORGANIZATIONS) may read them');
  }
  return auth.livemode;
}

async function report(ctx: Context<{ month: string }>, kind: ReportKind): Promise<string> {
  const livemode = operatorOnly(ctx);
  const reporterId = seatIdOrFail();
  const xml = await buildReport(ctx, kind, ctx.params.month, reporterId, await monthExchanges(ctx, ctx.params.month, livemode));
  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = 'application/xml; charset=utf-8';
  meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="${kind}-${ctx.params.month}-${livemode ? 'live' : 'test'}.xml"` };
  return xml;
}

const ReportingService: ServiceSchema = {
  name: 'reporting',
  mixins: [OrmMixin],

  started() {
    const self = this as ReportingThis;
    self.cronTask = schedule(peppolReportingConfig().cron, async () => {
      try {
        await runSubmission(self.broker);
      } catch (err) {
        self.logger.warn(`Peppol Reporting: the submission tick failed: ${(err as Error).message}`);
      }
    }, { noOverlap: true, timezone: 'UTC' });
  },

  async stopped() {
    await (this as ReportingThis).cronTask?.stop();
  },

  actions: {
    transactionStatisticsReport: implement(transactionStatisticsReport, (ctx) => report(ctx, 'tsr')),
    endUserStatisticsReport: implement(endUserStatisticsReport, (ctx) => report(ctx, 'eusr')),
    submitReports: implement(submitReports, async function (this: ReportingThis, ctx) { return runSubmission(this.broker, ctx.params.month); }),
  },
};

export default ReportingService;
