import { ApplicationFailure } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { DocumentForExport } from '../db/repositories/exports';
import { knownDianEnvironment } from '../domain/dian/catalogue';
import type { SecretBox } from '../domain/secret-box';
import { ExportError, type ExportInput, type ExportResult } from '../integrations/accounting/port';
import { documentAccounting } from '../domain/documents/accounting';
import { createIntegration, IntegrationConfigError, type IntegrationProvider } from '../integrations/accounting/registry';
import { presentExport, type ExportRecord } from '../services/presenters/export';
import { storableText } from '../domain/storable-text';
import { activityAttempt, retryingDependencyFaults } from './dependency-retries';
import { LOST_WORKER_GRACE_MS, withHeartbeatsAfter } from './heartbeat';

/** The most of an accounting system's text (its ids, names, error words) the export record keeps. */
const MAX_STORED_TEXT = 2000;

/** What the accounting software answered, as the export record can store it (its text is not ours). */
function storableResult(result: ExportResult): ExportResult {
  return {
    externalId: storableText(result.externalId, MAX_STORED_TEXT),
    externalNumber: storableText(result.externalNumber, MAX_STORED_TEXT),
    externalName: result.externalName === null ? null : storableText(result.externalName, MAX_STORED_TEXT),
  };
}

export type ExportActivityDependencies = {
  repositories: Repositories;
  secretBox: SecretBox;
  webhooks: { allowPrivateTargets: boolean };
  /** alegraBaseUrl: ALEGRA_BASE_URL (tests point it at the fake); undefined = Alegra's API. */
  exports: { alegraBaseUrl?: string };
};

/**
 * Error codes of export.failed (docs/exports.md): the adapters' ExportError codes, plus ours.
 * Anything else that ends the retries is reported as export_failed.
 */
export const EXPORT_FAILURE_CODES = [
  'invalid_credentials',
  'validation_failed',
  'duplicate_document',
  'rate_limited',
  'unavailable',
  'timeout',
  'unexpected_response',
  'integration_not_found',
  'invalid_integration_config',
  'document_not_found',
  'export_failed',
] as const;

const fail = (code: string, message: string) => ApplicationFailure.create({ message, type: code, nonRetryable: true });

/**
 * Attempts an export gets for failures of the accounting software worth retrying (`unavailable`,
 * `timeout`, `rate_limited`: counted in the row's retryable_failures) or of its own (a bug:
 * Temporal's attempt number, activities/dependency-retries.ts): the 8 of docs/exports.md. A
 * dependency of ours that is down (Postgres, Temporal) counts toward neither and is waited out
 * within the workflow's 30 attempts: until 2026-11-25 an outage of about 10 minutes after the
 * software had booked an export used up the 8 attempts and recorded it failed, and the client's
 * new request (a new idempotency key) booked it a second time.
 */
export const EXPORT_ATTEMPTS = 8;

/** The adapter input from the stored document: lines and supplier come from the parsed UBL (jsonb). */
export function exportInputOf(document: DocumentForExport): ExportInput {
  const supplier = document.supplier;
  const idNumber = supplier?.idNumber ?? document.contact_id_number;
  const name = supplier?.name ?? document.contact_name;
  if (!idNumber || !name) throw fail('validation_failed', `Document ${document.id} has no supplier identification to post it with.`);
  const accounting = documentAccounting(document);
  return {
    document: {
      id: document.id,
      number: document.number,
      cufe: document.cufe,
      issuedAt: document.issued_at.toISOString(),
      dueDate: document.due_date,
      currency: document.currency ?? 'COP',
      subTotal: document.sub_total ?? document.total ?? '0.00',
      vat: document.vat ?? '0.00',
      total: document.total ?? '0.00',
      taxes: accounting.taxes.map((entry) => ({
        taxSchemeId: entry.schemeId,
        taxSchemeName: entry.schemeName,
        percent: entry.percent,
        taxableAmount: entry.taxableAmount,
        amount: entry.taxAmount,
      })),
      taxTotal: accounting.taxTotal,
      lines: (document.lines ?? []).map((line) => {
        const vat = line.taxes.find((tax) => tax.schemeId === '01' && tax.percent !== null) ?? line.taxes.find((tax) => tax.percent !== null);
        return {
          description: line.description,
          quantity: line.quantity,
          unitPrice: line.unitPrice,
          lineTotal: line.lineExtensionAmount,
          taxPercent: vat?.percent ?? null,
          taxes: line.taxes.map((tax) => ({
            taxSchemeId: tax.schemeId,
            taxSchemeName: tax.schemeName,
            percent: tax.percent,
            amount: tax.taxAmount,
            perUnitAmount: tax.perUnitAmount ?? null,
          })),
          freeOfCharge: line.freeOfCharge ?? false,
          referencePrice: line.referencePrice?.amount ?? null,
        };
      }),
      documentType: document.dian_document_type,
      codeScheme: document.code_scheme,
      dianEnvironment: knownDianEnvironment(document.dian_environment),
      withholdings: accounting.withholdings.map((entry) => ({
        type: entry.type,
        taxSchemeId: entry.schemeId,
        taxSchemeName: entry.schemeName,
        percent: entry.percent,
        taxableAmount: entry.taxableAmount,
        amount: entry.taxAmount,
        amountCop: entry.taxAmountCop,
      })),
      withholdingTotal: accounting.withholdingTotal,
      allowanceCharges: accounting.allowanceCharges.map((entry) => ({
        charge: entry.chargeIndicator,
        reasonCode: entry.reasonCode,
        reason: entry.reason,
        percent: entry.percent,
        amount: entry.amount,
        baseAmount: entry.baseAmount,
      })),
      prepaidAmount: accounting.prepaidAmount,
      payableRounding: accounting.payableRounding,
      taxRounding: accounting.taxRounding,
      exchangeRate: accounting.exchangeRate,
      copEquivalents: accounting.cop,
    },
    supplier: {
      idType: supplier?.idType ?? document.contact_id_type ?? '31',
      idNumber,
      dv: supplier ? supplier.dv : document.contact_dv,
      name,
      email: supplier ? supplier.email : document.contact_email,
    },
  };
}

export function createExportActivities(deps: ExportActivityDependencies) {
  const { repositories } = deps;

  const activities = {
    /**
     * One attempt at posting an export. Transient adapter errors are thrown as retryable
     * failures (Temporal retries them with the workflow's policy, honouring a server-given
     * wait); anything a retry cannot fix is non-retryable with the error code as its type.
     * On success the export and the document are updated together and the record returned.
     */
    async postExport(exportId: number): Promise<ExportRecord & { company_id: number }> {
      const current = await repositories.exports.findById(exportId);
      if (!current) throw fail('export_failed', `Export ${exportId} does not exist.`);
      if (current.status !== 'pending') return { ...presentExport(current), company_id: current.company_id };
      await repositories.exports.recordAttempt(exportId, activityAttempt());

      const integration = await repositories.integrations.findByName(current.company_id, current.integration);
      if (!integration || !integration.credentials_encrypted) {
        throw fail('integration_not_found', `The integration ${JSON.stringify(current.integration)} no longer exists.`);
      }
      const document = await repositories.exports.documentForExport(current.document_id);
      if (!document) throw fail('document_not_found', `Document ${current.document_id} no longer exists.`);
      if (document.kind !== 'purchase') throw fail('validation_failed', `Document ${document.id} is a sale; only purchases are exported.`);

      let adapter;
      try {
        const credentials = JSON.parse(deps.secretBox.open(integration.credentials_encrypted.toString('utf8'))) as Record<string, string>;
        adapter = createIntegration(integration.provider as IntegrationProvider, credentials, integration.settings, {
          allowPrivateTargets: deps.webhooks.allowPrivateTargets,
          alegraBaseUrl: deps.exports.alegraBaseUrl,
        });
      } catch (error) {
        if (error instanceof IntegrationConfigError) throw fail('invalid_integration_config', error.message);
        throw error;
      }

      try {
        const result = await adapter.exportPurchase(exportInputOf(document), { idempotencyKey: `export-${exportId}` });
        const row = await repositories.exports.markSucceeded(exportId, storableResult(result));
        return { ...presentExport(row), company_id: row.company_id };
      } catch (error) {
        if (!(error instanceof ExportError)) throw error;
        if (!error.retryable) throw fail(error.code, error.message);
        // Counted in the export's row, not by Temporal's attempt number, which also counts the
        // attempts a dependency of ours that was down ended: after a long outage the software's
        // first retryable answer would have ended the export at once.
        if ((await repositories.exports.countRetryableFailure(exportId)) >= EXPORT_ATTEMPTS) throw fail(error.code, error.message);
        throw ApplicationFailure.create({
          message: error.message,
          type: error.code,
          nonRetryable: false,
          ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
        });
      }
    },

    /** The retries are over: the export failed with this code. */
    async failExport(exportId: number, code: string, message: string): Promise<ExportRecord & { company_id: number }> {
      // The message quotes the software's answer: kept storable, or recording the failure would fail for ever.
      const row = await repositories.exports.markFailed(exportId, code, storableText(message, MAX_STORED_TEXT));
      return { ...presentExport(row), company_id: row.company_id };
    },
  };
  return {
    ...activities,
    /**
     * The attempt heartbeats while it runs, so a worker killed mid-attempt is noticed within the
     * workflow's 20 s heartbeat timeout and the export retried then, not after the attempt's
     * 2-minute start-to-close (measured before 2026-11-25: 126 s after a kill -9).
     */
    postExport: (exportId: number) => retryingDependencyFaults(() => withHeartbeatsAfter(LOST_WORKER_GRACE_MS, () => activities.postExport(exportId)), EXPORT_ATTEMPTS),
  };
}
