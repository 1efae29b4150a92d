import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { Middleware } from 'koa';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { ApiError, invalidParameter, notFound } from '../../errors';
import { answerAccepted } from '../../accepted';
import { parseBody, takesNoBody } from '../../validation';
import type { DocumentRow } from '../../../db/repositories/documents';
import type { DianEventCode, DianEventRow } from '../../../db/repositories/dian-events';
import { startIfNeverStarted, startWorkflow } from '../../../temporal/start-workflow';
import { dianEventStart } from '../../../services/work-starts';
import { dianEventWorkflow } from '../../../workflows/dian-event';
import { eventNumberPrefix } from '../../../db/repositories/dian-settings';
import type { DianRegisteredEventRow } from '../../../db/repositories/dian-registered-events';
import { expressAcceptance } from '../../../domain/dian/express-acceptance';
import { dianEventsSyncWorkflow } from '../../../workflows/dian-events-sync';
import { workflowIdsFor } from '../../../workflows/messages';
import { eligibleForDianEvents, eventEnvironmentEligibility } from '../../../domain/dian/event-eligibility';
import { dianEventIn } from './schemas';
import { presentDianEvent, presentRegisteredEvent } from './present';
import { redirectToSignedUrl } from '../documents/routes';

type InvoiceState = CompanyState & { invoice: DocumentRow };

/** 032 needs a successful 030, 033 a successful 032 (RADIAN order). */
const PREREQUISITE: Record<DianEventCode, DianEventCode | null> = { '030': null, '032': '030', '033': '032' };

/**
 * Checks RADIAN's rules against the invoice's events — ours and those DIAN registered from
 * elsewhere (dian_registered_events, kept current asynchronously) — and throws the 409 that applies.
 */
export function checkEventOrder(code: DianEventCode, existing: DianEventRow[], atDian: DianRegisteredEventRow[] = [], now = new Date()): void {
  const registered = (event: string) => existing.some((row) => row.event === event && row.status === 'succeeded') || atDian.some((row) => row.event === event);
  if (registered(code)) {
    throw new ApiError(409, 'event_already_registered', `Event ${code} is already registered for this invoice.`);
  }
  if (existing.some((row) => row.event === code && row.status === 'pending')) {
    throw new ApiError(409, 'event_in_progress', `Event ${code} is already being sent for this invoice; wait for its outcome.`);
  }
  const prior = PREREQUISITE[code];
  if (prior && !registered(prior)) {
    throw new ApiError(409, 'event_out_of_order', `Event ${code} needs a successful event ${prior} first.`);
  }
  if (code !== '033') return;
  if (registered('031')) {
    throw new ApiError(409, 'invoice_claimed', 'The invoice has a claim (event 031, reclamo) at DIAN; it can no longer be accepted expressly.');
  }
  // Past DC24c's window a 033 is queued only to confirm an earlier attempt that went out inside
  // it (its answer lost): the sending activity asks DIAN and adopts it, or fails tacitly_accepted.
  const acceptance = expressAcceptance(existing, atDian, now);
  if (acceptance.allows === 'refuse') throw new ApiError(409, 'tacitly_accepted', acceptance.message);
}

/**
 * DIAN buyer events on received electronic invoices (docs/dian.md): POST answers 202 with the
 * pending record and starts dianEventWorkflow; the outcome arrives as dian_event.completed/failed.
 */
export function dianEventsRoutes(deps: ApiDependencies): Router {
  const { repositories, config } = deps;
  const router = createRouter();
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
  /** Where an event's outcome and DIAN's registered events show (an event has no GET of its own): the invoice's events. */
  const eventsOf = (companyId: number, invoiceId: number) => `/v1/companies/${companyId}/invoices/${invoiceId}/dian-events`;

  function requirePurchase(invoice: DocumentRow): asserts invoice is DocumentRow & { cufe: string } {
    if (invoice.kind !== 'purchase') {
      throw new ApiError(409, 'not_a_purchase', 'DIAN buyer events apply only to received (purchase) invoices.');
    }
    if (!invoice.cufe) throw new ApiError(409, 'not_a_purchase', 'This invoice has no CUFE, so DIAN does not know it.');
    const eligibility = eligibleForDianEvents(invoice);
    if (!eligibility.eligible) throw new ApiError(409, 'not_eligible_for_events', eligibility.reason);
  }

  async function requireSettings(companyId: number) {
    const settings = await repositories.dianSettings.find(companyId);
    if (!settings) {
      throw new ApiError(409, 'dian_settings_missing', 'Configure the company\'s DIAN settings (PUT /v1/companies/{company_id}/dian-settings) first.');
    }
    return settings;
  }

  /** DIAN's two environments keep separate catalogues: the settings must send to the one that validated the invoice. */
  function requireEnvironmentOf(invoice: DocumentRow, settings: { environment: string }): void {
    const environment = eventEnvironmentEligibility(settings.environment, invoice.dian_environment);
    if (!environment.eligible) throw new ApiError(409, 'dian_environment_mismatch', environment.reason);
  }

  const temporal = { client: deps.temporal.client, taskQueue: config.temporal.taskQueue };

  /** The start of one event's workflow (its id derives from the event's). */
  const eventStart = (companyId: number, invoice: InvoiceState['invoice'], event: Pick<DianEventRow, 'id' | 'event'>) =>
    dianEventStart(config.temporal.taskQueue, { companyId, documentId: invoice.id, cufe: invoice.cufe, eventId: event.id, event: event.event });

  /**
   * The pending event in the way was recorded but perhaps never queued (the API died between the
   * insert and the start): each pending event of the invoice whose workflow never ran is started
   * now, so the invoice is not blocked for good and the event ends with its outcome.
   */
  async function resumeStrandedEvents(companyId: number, invoice: InvoiceState['invoice']): Promise<void> {
    const pending = (await repositories.dianEvents.listForDocument(companyId, invoice.id)).filter((event) => event.status === 'pending');
    for (const event of pending) await startIfNeverStarted(temporal, dianEventWorkflow, eventStart(companyId, invoice, event));
  }

  router.post(path, requireScope('documents:write'), company, loadInvoice, async (ctx) => {
    const { company: owner, invoice } = ctx.state as InvoiceState;
    const input = parseBody(dianEventIn, ctx.request.body);
    requirePurchase(invoice);
    if ((input.event === '030' || input.event === '032') && !input.issuer) {
      throw invalidParameter('issuer', `Event ${input.event} must name the person who issues it: issuer {id_type, id_number, first_name, family_name, job_title, department?}.`);
    }
    const settings = await requireSettings(owner.id);
    requireEnvironmentOf(invoice, settings);
    const atDian = await repositories.dianRegisteredEvents.listForDocument(owner.id, invoice.id);
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
    // The order check runs inside the insert, under a lock on the invoice: concurrent requests
    // for one invoice are checked one after the other.
    let row;
    try {
      row = await repositories.dianEvents.insert(owner.id, invoice.id, input.event, input.event === '033' ? null : issuer, eventNumberPrefix(settings), (existing) =>
        checkEventOrder(input.event, existing, atDian),
      );
    } catch (error) {
      if (error instanceof ApiError && error.code === 'event_in_progress') await resumeStrandedEvents(owner.id, invoice);
      throw error;
    }
    // A start that failed may still have taken effect (Temporal slow or frozen, then answering
    // DEADLINE_EXCEEDED): the row stays pending, never undone, so the event is sent at most once.
    // The client's retry (409 event_in_progress) or the resume-stranded-work schedule starts it if
    // it never started; until 2026-11-25 it was failed not_started and the client told to send it
    // again, and a start that had taken effect sent it too, under a second number.
    await startWorkflow(temporal, dianEventWorkflow, eventStart(owner.id, invoice, row));
    answerAccepted(ctx, eventsOf(owner.id, invoice.id), presentDianEvent(row, invoice.cufe));
  });

  router.get(path, requireScope('documents:read'), company, loadInvoice, async (ctx) => {
    const { company: owner, invoice } = ctx.state as InvoiceState;
    const rows = await repositories.dianEvents.listForDocument(owner.id, invoice.id);
    const atDian = await repositories.dianRegisteredEvents.listForDocument(owner.id, invoice.id);
    ctx.body = {
      data: rows.map((row) => presentDianEvent(row, invoice.cufe ?? '')),
      // What DIAN last said it has registered (GetStatusEvent), events sent elsewhere included.
      registered_at_dian: atDian.map(presentRegisteredEvent),
      registered_at_dian_synced_at: (await repositories.dianRegisteredEvents.syncedAt(owner.id, invoice.id))?.toISOString() ?? null,
    };
  });

  // The signed ApplicationResponse as sent, and DIAN's last answer: 302 to a signed download.
  const artefacts = [
    { suffix: 'application-response', column: 'signed_xml_blob_key', contentType: 'application/xml', name: (row: DianEventRow) => `${row.number ?? row.id}-application-response.xml` },
    { suffix: 'dian-response', column: 'dian_response_blob_key', contentType: 'application/json', name: (row: DianEventRow) => `${row.number ?? row.id}-dian-response.json` },
  ] as const;
  for (const artefact of artefacts) {
    router.get(`${path}/:event_id/${artefact.suffix}`, requireScope('documents:read'), company, loadInvoice, async (ctx) => {
      const { company: owner, invoice } = ctx.state as InvoiceState;
      const id = parseIdParam(ctx.params.event_id, 'event_id');
      const row = (await repositories.dianEvents.listForDocument(owner.id, invoice.id)).find((event) => event.id === id);
      if (!row) throw notFound(`DIAN event ${id}`);
      const key = row[artefact.column];
      if (!key) throw new ApiError(404, 'file_not_available', 'This event has no such file yet.');
      redirectToSignedUrl(ctx, await deps.blobStore.signedDownloadUrl(key, { fileName: artefact.name(row), contentType: artefact.contentType }));
    });
  }

  // Refreshes registered_at_dian from DIAN's GetStatusEvent in the background (202).
  router.post(`${path}/sync`, requireScope('documents:write'), takesNoBody, company, loadInvoice, async (ctx) => {
    const { company: owner, invoice } = ctx.state as InvoiceState;
    requirePurchase(invoice);
    // The other environment's catalogue does not hold the invoice: its "no events" would be wrong.
    requireEnvironmentOf(invoice, await requireSettings(owner.id));
    // One sync per invoice at a time: a start while one runs joins it.
    await startWorkflow(temporal, dianEventsSyncWorkflow, {
      workflowId: workflowIdsFor(config.temporal.taskQueue).dianEventsSync(invoice.id),
      args: [{ documentId: invoice.id }],
    });
    answerAccepted(ctx, eventsOf(owner.id, invoice.id), {
      invoice_id: invoice.id,
      cufe: invoice.cufe,
      status: 'syncing',
      registered_at_dian_synced_at: (await repositories.dianRegisteredEvents.syncedAt(owner.id, invoice.id))?.toISOString() ?? null,
    });
  });

  return router;
}
