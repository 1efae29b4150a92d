import { ApplicationFailure, Context } from '@temporalio/activity';
import { NOT_STARTED, type DianEventRow } from '../db/repositories/dian-events';
import { buildApplicationResponse, eventQrCode, organizationTypeOf, type ApplicationResponseParty } from '../domain/dian/application-response';
import { keySegment, type BlobStore } from '../storage/blob-store';
import { eventFileName, packageEvent } from '../domain/dian/event-package';
import { signXadesEpes } from '../domain/dian/xades';
import type { UblParty } from '../domain/ubl/types';
import { DianError, type DianGateway } from '../integrations/dian/port';
import { loadDianEventRecord } from '../services/presenters/dian-event';
import { companyDian, dianFailure, isRetryableDianFailure, type CompanyDian, type DianActivityDependencies } from './dian-gateway';
import { readRegisteredEvents, syncInvoiceEvents, warnInActivity } from './dian-documents';
import { eligibleForDianEvents, eventEnvironmentEligibility, referencedInvoiceTypeCode } from '../domain/dian/event-eligibility';
import { expressAcceptance } from '../domain/dian/express-acceptance';
import { LOST_WORKER_GRACE_MS, withHeartbeatsAfter } from './heartbeat';
import { retryingDependencyFaults } from './dependency-retries';

/**
 * Attempts an event gets for DIAN's failures worth retrying (network, timeout, HTTP 5xx, of the
 * send or of a GetStatusEvent it makes: counted in the row's retryable_failures) or for its own
 * (a bug: Temporal's attempt number, activities/dependency-retries.ts): 8, 5 s doubling to 5 min,
 * about 15 minutes (docs/dian.md). A dependency of ours that is down (Postgres, the blob store)
 * counts toward neither and is waited out within the workflow's 30 attempts: until 2026-11-26 an
 * outage of about 15 minutes used up the 8 and ended the event failed (`service_unavailable`),
 * although nothing was wrong with DIAN or the event.
 */
export const DIAN_EVENT_ATTEMPTS = 8;

/**
 * DIAN's "already processed" answer. DIAN keys it by sender NIT + event type + event number and
 * returns the EARLIER document's key in XmlDocumentKey: it means success only when that
 * document is ours (a resend after a lost answer), never when another document took the number.
 */
const ALREADY_PROCESSED = /Regla:\s*90\b/;

function transportFailure(error: unknown): never {
  if (error instanceof DianError) {
    if (error.retryable) throw ApplicationFailure.retryable(error.message, `dian_${error.code}`);
    throw dianFailure(`dian_${error.code}`, error.message);
  }
  throw error;
}

/** The event's date and time in Colombia (UTC-5, no DST), fixed by the row so every retry has the same CUDE. */
function colombiaDateTime(instant: Date): { date: string; time: string } {
  const iso = new Date(instant.getTime() - 5 * 3600 * 1000).toISOString();
  return { date: iso.slice(0, 10), time: `${iso.slice(11, 19)}-05:00` };
}

/** The CUDE a built or signed ApplicationResponse carries (cbc:UUID, schemeName CUDE-SHA384). */
function cudeOf(xml: string): string {
  return /<cbc:UUID[^>]*CUDE-SHA384[^>]*>([0-9a-f]+)</.exec(xml)?.[1] ?? '';
}

/** Whether GetStatusEvent lists the event with this CUDE for the invoice. */
async function registeredAtDian(gateway: DianGateway, cufe: string, cude: string): Promise<boolean> {
  try {
    return (await gateway.getStatusEvent(cufe)).some((registered) => registered.cude === cude);
  } catch (error) {
    return transportFailure(error);
  }
}

/**
 * After DIAN refuses an event: what DIAN holds for the invoice is read again (GetStatusEvent),
 * because a refusal is often about it (the event already registered by other software, a claim),
 * and the order checks of the next event must see it rather than wait for a manual sync. Best
 * effort: the refusal is the answer either way.
 */
async function refreshRegisteredEvents(deps: DianActivityDependencies, documentId: number, dian: CompanyDian): Promise<void> {
  try {
    await syncInvoiceEvents(deps, documentId, async () => dian);
  } catch {
    // Unreachable or refusing now: the next sync (POST …/dian-events/sync, or the next import) reads it.
  }
}

export function createDianEventActivities(deps: DianActivityDependencies & { blobStore: BlobStore }) {
  const { repositories } = deps;

  /**
   * DIAN's failure worth retrying (a retryable `dian_…` failure) is counted in the event's row,
   * not by Temporal's attempt number, which also counts the attempts an outage of ours ended:
   * the 8th so counted ends the event with its code, as the 8th attempt did before. Counted per
   * workflow run: an operator's reset (a new run) gets its 8 again, as it did before.
   */
  async function countingDianFailures<T>(eventId: number, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isRetryableDianFailure(error)) throw error;
      const runId = Context.current().info.workflowExecution?.runId ?? null;
      if ((await repositories.dianEvents.countRetryableFailure(eventId, runId)) >= DIAN_EVENT_ATTEMPTS) throw dianFailure(error.type, error.message);
      throw error;
    }
  }

  async function load(eventId: number): Promise<DianEventRow> {
    const row = await repositories.dianEvents.findById(eventId);
    if (!row) throw new Error(`DIAN event ${eventId} does not exist`);
    return row;
  }

  /**
   * The API checked these rules when the event was queued; they are checked again here because
   * the invoice may have been reclassified since (`invoicing documents reclassify`: a POS ticket
   * imported as an invoice) or the event may have waited past DC24c's window. The window is checked
   * only before the first attempt: once an attempt has gone out, DIAN may already hold the event
   * (a lost answer), and the retry must be able to confirm it. For the same reason a new 033 past
   * the window whose invoice has an earlier 033 that went out inside it (and ended failed) may
   * still confirm that attempt: the tacitly_accepted message is returned, for the caller to fail
   * with when DIAN does not hold it; null when the event may be sent.
   */
  async function recheckRules(event: DianEventRow, document: Parameters<typeof eligibleForDianEvents>[0]): Promise<string | null> {
    const eligibility = eligibleForDianEvents(document);
    if (!eligibility.eligible) throw dianFailure('not_eligible_for_events', eligibility.reason);
    if (event.event !== '033' || event.signed_xml_blob_key) return null;
    const acceptance = expressAcceptance(
      (await repositories.dianEvents.listForDocument(event.company_id, event.document_id)).filter((row) => row.id !== event.id),
      await repositories.dianRegisteredEvents.listForDocument(event.company_id, event.document_id),
      new Date(),
    );
    if (acceptance.allows === 'refuse') throw dianFailure('tacitly_accepted', acceptance.message);
    return acceptance.allows === 'confirm' ? acceptance.message : null;
  }

  /**
   * Before a new event is first signed: whether DIAN already holds one of the invoice's earlier
   * attempts at the same event that ended failed after going out (retries exhausted, an answer
   * lost, a worker stopped), which DIAN may have registered all the same. A new event would carry
   * a new number and CUDE, and DIAN refuses a second event of a kind per invoice (LGC01), so the
   * service asks (GetStatusEvent, stored as registered_at_dian) instead of sending: the earlier
   * attempt registered returns its row and CUDE; the event registered by other software fails
   * event_already_registered; nothing of the kind lets the new event go out. Costs no DIAN call
   * when there was no such attempt. `mayBeSent` false (a 033 past DC24c's window, which can only
   * confirm an earlier attempt): an answer no retry fixes fails the event instead of letting it go
   * out, since DIAN would refuse it anyway; the client may send it again to ask again.
   */
  async function registeredEarlierAttempt(
    event: DianEventRow,
    document: { id: number; company_id: number; cufe: string; dian_environment: string | null },
    dian: CompanyDian,
    mayBeSent: boolean,
  ): Promise<{ attempt: DianEventRow; cude: string } | null> {
    const attempts = (await repositories.dianEvents.listForDocument(event.company_id, event.document_id)).filter(
      (row) => row.id !== event.id && row.event === event.event && row.status === 'failed' && row.signed_xml_blob_key,
    );
    if (attempts.length === 0) return null;
    const cudes = new Map<string, DianEventRow>();
    for (const attempt of attempts) cudes.set(cudeOf((await deps.blobStore.get(attempt.signed_xml_blob_key!)).toString('utf8')), attempt);
    let listed: Awaited<ReturnType<typeof readRegisteredEvents>>;
    try {
      listed = await readRegisteredEvents(deps, document, dian);
    } catch (error) {
      // DIAN answered what no retry fixes (an unreadable answer, a refusal of the query): the
      // event goes out as it did before this check. Nothing is registered twice: DIAN refuses a
      // second event of a kind per invoice (LGC01). A 033 past its window fails with the answer.
      if (!(error instanceof ApplicationFailure) || !error.nonRetryable || !mayBeSent) throw error;
      warnInActivity('DIAN could not say whether it holds an earlier attempt of the event; it is sent', { eventId: event.id, reason: error.message });
      return null;
    }
    listed ??= [];
    const same = listed.filter((registered) => registered.code === event.event);
    const ours = same.find((registered) => registered.cude && cudes.has(registered.cude));
    if (ours) return { attempt: cudes.get(ours.cude!)!, cude: ours.cude! };
    if (same.length > 0) {
      throw dianFailure('event_already_registered', `DIAN already holds event ${event.event} for this invoice (CUDE ${same[0]!.cude ?? 'not given'}), registered by other software; nothing was sent.`);
    }
    return null;
  }

  const activities = {
    /**
     * Builds, signs (XAdES-EPES), zips and sends one buyer event. Transport failures are
     * retryable; a DIAN rejection is non-retryable with type = DIAN's StatusCode. On acceptance
     * the event is marked succeeded with its CUDE.
     */
    async sendDianEvent(eventId: number): Promise<{ cude: string }> {
      const event = await load(eventId);
      if (event.status === 'succeeded' && event.cude) return { cude: event.cude };
      // The API gave up on this row when its workflow's start failed, and told the client to send
      // the event again: a start that took effect after all (Temporal frozen, then answering
      // DEADLINE_EXCEEDED) must not send it as well, or DIAN gets the event twice, under two numbers.
      if (event.status === 'failed' && event.error_code === NOT_STARTED) throw dianFailure(NOT_STARTED, event.error_message ?? 'The event could not be queued; send it again.');
      const company = await repositories.companies.findVisible({ allCompanies: true }, event.company_id);
      const document = await repositories.dianEvents.documentOf(event.document_id);
      if (!company || !document) throw dianFailure('invoice_not_found', `The invoice of DIAN event ${eventId} no longer exists.`);
      if (!document.cufe || !document.number || !document.supplier) {
        throw dianFailure('invoice_incomplete', 'The invoice has no CUFE, number or supplier to refer to.');
      }
      const tooLateUnlessRegistered = await recheckRules(event, document);
      const dian = await companyDian(deps, event.company_id);
      // The settings may have moved to the other DIAN environment since the event was queued.
      const environmentCheck = eventEnvironmentEligibility(dian.settings.environment, document.dian_environment);
      if (!environmentCheck.eligible) throw dianFailure('dian_environment_mismatch', environmentCheck.reason);
      if (!event.signed_xml_blob_key) {
        const registered = await registeredEarlierAttempt(event, { ...document, cufe: document.cufe }, dian, tooLateUnlessRegistered === null);
        if (registered) {
          await repositories.dianEvents.markRegisteredByAttempt(eventId, registered.attempt, registered.cude);
          return { cude: registered.cude };
        }
        // Past DC24c's window, DIAN holds none of our earlier 033s: a new one would be refused.
        if (tooLateUnlessRegistered !== null) throw dianFailure('tacitly_accepted', tooLateUnlessRegistered);
      }
      const supplier = document.supplier as UblParty;
      // The supplier's own AdditionalAccountID when the stored document has it (imported since it is read).
      const receiverType = organizationTypeOf({ personType: supplier.personType, idType: supplier.idType });
      const receiver: ApplicationResponseParty = {
        name: supplier.name, nit: supplier.idNumber, idType: supplier.idType ?? '31',
        ...(supplier.dv ? { dv: supplier.dv } : {}), ...(receiverType ? { organizationType: receiverType } : {}),
      };
      const senderType = organizationTypeOf({ personType: company.person_type });
      const environment = dian.settings.environment === 'produccion' ? 'production' : 'testing';
      // A technology provider's software, or the company's own (sts:ProviderID).
      const provider = dian.settings.software_provider_nit
        ? { providerNit: dian.settings.software_provider_nit }
        : { providerNit: company.nit, providerDv: company.dv };
      // Issued when first signed, not when queued: an event that waited (a workflow started late by
      // the stranded-work recovery) is not dated days before DIAN receives it; a retry reuses the
      // instant, so its CUDE is the lost attempt's and DIAN's Regla 90 confirms it.
      const issuedAt = event.issued_at ?? (await repositories.dianEvents.issueInstant(eventId));
      const { date, time } = colombiaDateTime(issuedAt);
      // Events created before numbering (migration 20261123070000) keep their database id.
      const number = event.number ?? String(event.id);
      let xml: string;
      try {
        xml = buildApplicationResponse({
          responseCode: event.event,
          id: number,
          issueDate: date,
          issueTime: time,
          environment,
          sender: { name: company.name, nit: company.nit, dv: company.dv, ...(senderType ? { organizationType: senderType } : {}) },
          receiver,
          software: { ...provider, softwareId: dian.software.softwareId, pin: dian.software.pin },
          invoice: { number: document.number, cufe: document.cufe, documentTypeCode: referencedInvoiceTypeCode(document) },
          qrCode: eventQrCode(environment, document.cufe),
          ...(event.issuer ? { issuer: event.issuer } : {}),
        });
      } catch (error) {
        throw dianFailure('invalid_event', (error as Error).message);
      }
      const cude = cudeOf(xml);
      const signed = signXadesEpes(xml, { privateKeyPem: dian.certificate.privateKeyPem, certificatePem: dian.certificate.certificatePem }, {
        signingTime: issuedAt,
        chainPems: dian.certificate.chainPems,
      });
      const fileName = eventFileName({ senderNit: company.nit, year: Number(date.slice(0, 4)), sequence: Number(event.sequence ?? event.id) });
      // Kept whatever DIAN answers: the exact bytes sent (the signature covers them).
      const artefacts = `companies/${event.company_id}/dian-events/${event.id}`;
      await deps.blobStore.put(`${artefacts}/${keySegment(fileName)}`, Buffer.from(signed, 'utf8'), 'application/xml');
      await repositories.dianEvents.setArtifacts(eventId, { signed_xml_blob_key: `${artefacts}/${keySegment(fileName)}` });
      let result;
      try {
        result = await dian.gateway.sendEvent(packageEvent(signed, fileName), fileName.replace(/^ar/, 'z').replace(/\.xml$/, '.zip'));
      } catch (error) {
        transportFailure(error);
      }
      // DIAN's answer to this attempt (DianResponse: StatusCode, StatusDescription, ErrorMessage, XmlDocumentKey).
      const answerKey = `${artefacts}/dian-response.json`;
      await deps.blobStore.put(answerKey, Buffer.from(JSON.stringify(result, null, 2), 'utf8'), 'application/json');
      await repositories.dianEvents.setArtifacts(eventId, { dian_response_blob_key: answerKey });
      if (!result.accepted) {
        if (!result.errors.some((line) => ALREADY_PROCESSED.test(line))) {
          await refreshRegisteredEvents(deps, event.document_id, dian);
          const detail = [result.description, ...result.errors].filter(Boolean).join(' ');
          throw dianFailure(result.statusCode || 'rejected', detail || 'DIAN rejected the event.');
        }
        if (result.documentKey !== cude && !(await registeredAtDian(dian.gateway, document.cufe, cude))) {
          throw dianFailure(
            'dian_duplicate_event_number',
            `DIAN already holds another event ${event.event} numbered ${number} from NIT ${company.nit}` +
              (result.documentKey ? ` (document key ${result.documentKey})` : '') +
              ', probably sent by other software. Nothing was registered for this invoice. Sending the event again uses the next number;' +
              ' if numbers keep clashing, change event_number_prefix in the DIAN settings.',
          );
        }
      }
      await repositories.dianEvents.markSucceeded(eventId, cude);
      return { cude };
    },

    async failDianEvent(eventId: number, code: string, message: string): Promise<void> {
      await repositories.dianEvents.markFailed(eventId, code, message);
    },

    async dianEventRecord(eventId: number) {
      return loadDianEventRecord(repositories, eventId);
    },
  };
  return {
    ...activities,
    /**
     * The attempt heartbeats while it runs (see postExport): a worker killed mid-send is noticed
     * within the workflow's 20 s heartbeat timeout; the retry resends the same CUDE, which DIAN
     * confirms as already processed (Regla 90) when the lost attempt reached it. DIAN's failures
     * and the activity's own end the event at their 8th (DIAN_EVENT_ATTEMPTS); a dependency of
     * ours that is down is retried for as long as the workflow's policy allows.
     */
    sendDianEvent: (eventId: number) =>
      retryingDependencyFaults(
        () => withHeartbeatsAfter(LOST_WORKER_GRACE_MS, () => countingDianFailures(eventId, () => activities.sendDianEvent(eventId))),
        DIAN_EVENT_ATTEMPTS,
      ),
  };
}
