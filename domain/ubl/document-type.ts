/**
 * What a DIAN document is: its type (Anexo Técnico 1.9, table 13.1.3 "Tipo de documento", and
 * the Anexo of the documento soporte / documento equivalente electrónico) and the scheme of its
 * unique code (cbc:UUID schemeName: CUFE-SHA384, CUDE-SHA384, CUDS-SHA384).
 *
 *   01 factura electrónica de venta                 → electronic_invoice   (CUFE)
 *   02 factura electrónica de venta - exportación   → export_invoice       (CUFE)
 *   03 instrumento de contingencia del facturador   → contingency_invoice  (CUFE)
 *   04 factura de contingencia DIAN                 → contingency_invoice  (CUFE)
 *   05 documento soporte (adquisiciones a no obligados a facturar) → support_document (CUDS)
 *   20 documento equivalente electrónico POS         → pos_equivalent       (CUDE)
 *   other equivalent documents (35 POS pasajeros, …) → equivalent_document  (CUDE)
 *   91 nota crédito / 92 nota débito                 → credit_note / debit_note (CUDE)
 *   95 nota de ajuste del documento soporte          → support_document_adjustment (CUDS)
 *   94 / 93 nota de ajuste (crédito / débito) al documento equivalente electrónico
 *                                                   → equivalent_document_adjustment (CUDE)
 *
 * Pure: no I/O.
 */
import type { CodeScheme, DianDocumentType, UblDocumentType } from './types';

const INVOICE_TYPES: Record<string, DianDocumentType> = {
  '01': 'electronic_invoice',
  '02': 'export_invoice',
  '03': 'contingency_invoice',
  '04': 'contingency_invoice',
  '05': 'support_document',
  '20': 'pos_equivalent',
};

const SUPPORT_ADJUSTMENT_CODE = '95';
/**
 * Anexo técnico del documento equivalente electrónico (Resolución 000165 de 2023), numeral 16.3:
 * a documento equivalente (a POS ticket, type 20) has no credit or debit note of its own, only
 * these notas de ajuste; DIAN's toolbox POS example refers to one as a CreditNoteDocumentReference
 * with DocumentTypeCode 94 and a CUDE.
 */
const EQUIVALENT_ADJUSTMENT_CODES = new Set(['93', '94']);

/** The scheme named by cbc:UUID's schemeName ('CUFE-SHA384' → 'CUFE'); null when it names none. */
export function schemeOfName(schemeName: string | null): CodeScheme | null {
  const match = /^\s*(CUFE|CUDE|CUDS)\b/i.exec(schemeName ?? '');
  return match ? (match[1].toUpperCase() as CodeScheme) : null;
}

/** The scheme a document of this type carries when its UUID does not say. */
function defaultScheme(type: DianDocumentType): CodeScheme {
  switch (type) {
    case 'electronic_invoice':
    case 'export_invoice':
    case 'contingency_invoice':
      return 'CUFE';
    case 'support_document':
    case 'support_document_adjustment':
      return 'CUDS';
    default:
      return 'CUDE';
  }
}

/**
 * DIAN's type and code scheme of a document, from its root element, its type code
 * (InvoiceTypeCode / CreditNoteTypeCode / DebitNoteTypeCode) and cbc:UUID's schemeName.
 * The type code decides the type; without a known code the UUID's scheme does (CUDS → support
 * document, CUDE on an Invoice → equivalent document). The scheme is the UUID's own, falling
 * back on the one the type carries.
 */
export function classifyDocument(
  root: UblDocumentType,
  typeCode: string | null,
  uuidSchemeName: string | null,
): { dianDocumentType: DianDocumentType; codeScheme: CodeScheme } {
  const named = schemeOfName(uuidSchemeName);
  const code = typeCode?.trim() ?? null;
  let type: DianDocumentType;
  if (root === 'Invoice') {
    type =
      (code !== null ? INVOICE_TYPES[code] : undefined) ??
      (named === 'CUDS' ? 'support_document' : named === 'CUDE' ? 'equivalent_document' : 'electronic_invoice');
  } else if (code !== null && EQUIVALENT_ADJUSTMENT_CODES.has(code)) {
    type = 'equivalent_document_adjustment';
  } else if (root === 'CreditNote') {
    type = code === SUPPORT_ADJUSTMENT_CODE || named === 'CUDS' ? 'support_document_adjustment' : 'credit_note';
  } else {
    type = 'debit_note';
  }
  return { dianDocumentType: type, codeScheme: named ?? defaultScheme(type) };
}
