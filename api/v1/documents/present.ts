import type { DocumentRow } from '../../../db/repositories/documents';
import { knownDianEnvironment } from '../../../domain/dian/catalogue';
import { filesObject } from '../../../domain/documents/files-object';
import { originalOf } from '../../../services/link-document-files';
import { documentAccounting, type DocumentAccounting } from '../../../domain/documents/accounting';
import type { z } from 'zod';
import type { accountingOut, DocumentOut } from './schemas';

const ZERO = '0.00';

/** id_number is an integer in the spec; identifiers that are not all digits (foreign ids) come out null here and in full on the contact. */
function integerIdNumber(value: string | null): number | null {
  if (value === null || !/^[0-9]{1,15}$/.test(value)) return null;
  return Number(value);
}

/** The spec's Invoice object; the other kinds share it, with referenced_document(s) on notes. */
export function presentDocument(row: DocumentRow): DocumentOut {
  const isNote = row.document_type === 'credit_note' || row.document_type === 'debit_note';
  return {
    id: row.id,
    number: row.number,
    cufe: row.cufe,
    kind: row.kind,
    issued_at: row.issued_at.toISOString(),
    due_date: row.due_date,
    contact: row.contact_id === null ? null : { id: row.contact_id, id_number: integerIdNumber(row.contact_id_number), name: row.contact_name },
    sub_total: row.sub_total ?? row.total ?? ZERO,
    vat: row.vat ?? ZERO,
    total: row.total ?? ZERO,
    currency: row.currency,
    ...presentDianType(row),
    ...presentAccounting(documentAccounting(row)),
    warnings: row.warnings === null ? null : row.warnings.map((warning) => ({ code: warning.code, message: warning.message })),
    synced: row.synced,
    synced_at: row.synced_at ? row.synced_at.toISOString() : null,
    export: row.export_integration
      ? {
          integration: row.export_integration,
          external_id: row.export_external_id,
          external_number: row.export_external_number,
          external_name: row.export_external_name,
          exported_at: row.exported_at ? row.exported_at.toISOString() : null,
          marked_manually: row.export_marked_manually ?? false,
        }
      : null,
    imported_file_id: row.imported_file_id,
    files: filesObject(row.document_type, originalOf(row)),
    ...(isNote ? presentReferences(row) : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The documents a note corrects: all of them in reading order, and the first alone as before. */
function presentReferences(row: DocumentRow) {
  return {
    referenced_document: row.referenced_document_number ? { number: row.referenced_document_number, cufe: row.referenced_document_cufe } : null,
    referenced_documents: row.referenced_documents.map((reference) => ({ number: reference.number, cufe: reference.cufe, issue_date: reference.issueDate })),
  };
}

/** What the document is for DIAN; null for a bare PDF (payment claims, foreign invoices). */
function presentDianType(row: DocumentRow) {
  return {
    document_type: row.dian_document_type,
    document_type_code: row.dian_type_code,
    code_scheme: row.code_scheme,
    dian_environment: knownDianEnvironment(row.dian_environment),
  };
}

/** Taxes, withholdings, allowances/charges, prepayments, rounding, exchange rate and COP equivalents (docs/ingestion.md). */
export function presentAccounting(accounting: DocumentAccounting): z.infer<typeof accountingOut> {
  return {
    taxes: accounting.taxes.map((entry) => ({
      tax_scheme_id: entry.schemeId,
      tax_scheme_name: entry.schemeName,
      percent: entry.percent,
      taxable_amount: entry.taxableAmount,
      amount: entry.taxAmount,
      per_unit_amount: entry.perUnitAmount ?? null,
      units: entry.units ?? null,
    })),
    tax_total: accounting.taxTotal,
    withholdings: accounting.withholdings.map((entry) => ({
      type: entry.type,
      tax_scheme_id: entry.schemeId,
      tax_scheme_name: entry.schemeName,
      percent: entry.percent,
      taxable_amount: entry.taxableAmount,
      amount: entry.taxAmount,
      amount_cop: entry.taxAmountCop,
    })),
    withholding_total: accounting.withholdingTotal,
    allowance_charges: accounting.allowanceCharges.map((entry) => ({
      charge: entry.chargeIndicator,
      reason_code: entry.reasonCode,
      reason: entry.reason,
      percent: entry.percent,
      amount: entry.amount,
      base_amount: entry.baseAmount,
    })),
    allowance_total: accounting.allowanceTotal,
    charge_total: accounting.chargeTotal,
    prepaid_amount: accounting.prepaidAmount,
    prepaid_payments: accounting.prepaidPayments.map((entry) => ({
      id: entry.id,
      amount: entry.paidAmount,
      received_date: entry.receivedDate,
      paid_date: entry.paidDate,
      instruction: entry.instruction,
    })),
    payable_rounding_amount: accounting.payableRounding,
    tax_rounding_amount: accounting.taxRounding,
    exchange_rate: accounting.exchangeRate
      ? {
          source_currency: accounting.exchangeRate.sourceCurrency,
          target_currency: accounting.exchangeRate.targetCurrency,
          rate: accounting.exchangeRate.rate,
          date: accounting.exchangeRate.date,
        }
      : null,
    cop_equivalents: accounting.cop
      ? { sub_total: accounting.cop.subTotal, vat: accounting.cop.vat, tax_total: accounting.cop.taxTotal, total: accounting.cop.total, withholding_total: accounting.cop.withholdingTotal }
      : null,
  };
}
