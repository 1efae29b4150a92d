import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, invalidParameter, notFound } from '../../errors';
import { parseBody } from '../../validation';
import type { DocumentRow } from '../../../db/repositories/documents';
import type { DianEventCode, DianEventRow } from '../../../db/repositories/dian-events';
import { startWorkflow } from '../../../temporal/start-workflow';
import { dianEventWorkflow } from '../../../workflows/dian-event';
import { eventNumberPrefix } from '../../../db/repositories/dian-settings';
import { workflowIdsFor } from '../../../workflows/messages';
import { eligibleForDianEvents } from '../../../domain/dian/event-eligibility';
import { dianEventIn } from './schemas';
import { presentDianEvent } from './present';

type InvoiceState = CompanyState & { invoice: DocumentRow };

/** 032 needs a successful 030, 033 a successful 032 (RADIAN order). */
const PREREQUISITE: Record<DianEventCode, DianEventCode | null> = { '030': null, '032': '030', '033': '032' };

/** Checks the order rules against the invoice's events; throws the 409 that applies. */
export function checkEventOrder(code: DianEventCode, existing: DianEventRow[]): void {
  if (existing.some((row) => row.event === code && row.status === 'succeeded')) {
    throw new ApiError(409, 'event_already_registered', `Event ${code} is already registered for this invoice.`);
  }
  if (existing.some((row) => row.event === code && row.status === 'pending')) {
    throw new ApiError(409, 'event_in_progress', `Event ${code} is already being sent for this invoice; wait for its outcome.`);
  }
  const prior = PREREQUISITE[code];
  if (prior && !existing.some((row) => row.event === prior && row.status === 'succeeded')) {
    throw new ApiError(409, 'event_out_of_order', `Event ${code} needs a successful event ${prior} first.`);
  }
}

/**
 * DIAN buyer events on received electronic invoices (docs/dian.md): POST answers 202 with the
 * pending record and starts dianEventWorkflow; the outcome arrives as dian_event.completed/failed.
 */
export function dianEventsRoutes(deps: ApiDependencies): Router {
  const { repositories, config } = deps;
  const router = new Router();
  const company = loadCompany(repositories.companies);

  const loadInvoice: Middleware = async (ctx, next) => {
    const state = ctx.state as InvoiceState;
    const id = parseIdParam(ctx.params?.document_id, 'document_id');
    const invoice = await repositories.documents.find(state.company.id, 'electronic_invoice', id);
    if (!invoice) throw notFound(`Invoice ${id}`);
    state.invoice = invoice;
    await next();
  };

  const path = '/companies/:company_id/invoices/:document_id/dian-events';

  router.post(path, requireScope('documents:write'), company, loadInvoice, async (ctx) => {
    const { company: owner, invoice } = ctx.state as InvoiceState;
    const input = parseBody(dianEventIn, ctx.request.body);
    if (invoice.kind !== 'purchase') {
      throw new ApiError(409, 'not_a_purchase', 'DIAN buyer events apply only to received (purchase) invoices.');
    }
    if (!invoice.cufe) throw new ApiError(409, 'not_a_purchase', 'This invoice has no CUFE, so DIAN does not know it.');
    const eligibility = eligibleForDianEvents(invoice);
    if (!eligibility.eligible) throw new ApiError(409, 'not_eligible_for_events', eligibility.reason);
    if ((input.event === '030' || input.event === '032') && !input.issuer) {
      throw invalidParameter('issuer', `Event ${input.event} must name the person who issues it: issuer {id_type, id_number, first_name, family_name, job_title, department?}.`);
    }
    const settings = await repositories.dianSettings.find(owner.id);
    if (!settings) {
      throw new ApiError(409, 'dian_settings_missing', 'Configure the company\'s DIAN settings (PUT /v1/companies/{company_id}/dian-settings) first.');
    }
    checkEventOrder(input.event, await repositories.dianEvents.listForDocument(owner.id, invoice.id));
    const issuer = input.issuer
      ? {
          idType: input.issuer.id_type,
          idNumber: input.issuer.id_number,
          firstName: input.issuer.first_name,
          familyName: input.issuer.family_name,
          jobTitle: input.issuer.job_title,
          ...(input.issuer.department ? { department: input.issuer.department } : {}),
        }
      : null;
    const row = await repositories.dianEvents.insert(owner.id, invoice.id, input.event, input.event === '033' ? null : issuer, eventNumberPrefix(settings));
    try {
      await startWorkflow({ client: deps.temporal.client, taskQueue: config.temporal.taskQueue }, dianEventWorkflow, {
        workflowId: workflowIdsFor(config.temporal.taskQueue).dianEvent(row.id),
        args: [{ eventId: row.id }],
      });
    } catch (error) {
      // Nothing will send it: do not let a pending row block the next attempt.
      await repositories.dianEvents.markFailed(row.id, 'not_started', 'The event could not be queued; send it again.');
      throw error;
    }
    ctx.status = 202;
    ctx.body = presentDianEvent(row, invoice.cufe);
  });

  router.get(path, requireScope('documents:read'), company, loadInvoice, async (ctx) => {
    const { company: owner, invoice } = ctx.state as InvoiceState;
    const rows = await repositories.dianEvents.listForDocument(owner.id, invoice.id);
    ctx.body = { data: rows.map((row) => presentDianEvent(row, invoice.cufe ?? '')) };
  });

  return router;
}
