/**
 * Which documents can receive DIAN's buyer events (030 acuse de recibo, 032 recibo del bien,
 * 033 aceptación expresa). RADIAN registers events only on electronic sales invoices identified
 * by a CUFE: types 01 (venta), 02 (exportación), 03 (contingencia facturador) and 04
 * (contingencia DIAN). DIAN rejects them on POS equivalent documents (type 20, CUDE), support
 * documents (05, CUDS) and notes, so they are refused before anything is sent. Pure.
 */
import type { CodeScheme, DianDocumentType } from '../ubl/types';

export const EVENT_TYPE_CODES: readonly string[] = ['01', '02', '03', '04'];
export const EVENT_DOCUMENT_TYPES: readonly DianDocumentType[] = ['electronic_invoice', 'export_invoice', 'contingency_invoice'];

export type EventEligibility = { eligible: true } | { eligible: false; reason: string };

const DESCRIPTIONS: Partial<Record<DianDocumentType, string>> = {
  pos_equivalent: 'a POS equivalent document (type 20, CUDE)',
  equivalent_document: 'an electronic equivalent document (CUDE)',
  support_document: 'a support document (documento soporte, type 05, CUDS)',
  support_document_adjustment: 'a support-document adjustment note (CUDS)',
  equivalent_document_adjustment: 'an adjustment note of an electronic equivalent document (type 93/94, CUDE)',
  credit_note: 'a credit note',
  debit_note: 'a debit note',
};

export function eligibleForDianEvents(document: {
  /** The collection's type (electronic_invoice, credit_note, …). */
  document_type: string;
  cufe: string | null;
  dian_document_type: DianDocumentType | string | null;
  dian_type_code: string | null;
  code_scheme: CodeScheme | string | null;
}): EventEligibility {
  const refuse = (what: string): EventEligibility => ({
    eligible: false,
    reason: `This document is ${what}; DIAN accepts events 030/032/033 only on electronic invoices of types 01–04 identified by a CUFE.`,
  });
  if (document.document_type !== 'electronic_invoice' || !document.cufe) return refuse('not an electronic invoice with a CUFE');
  const type = document.dian_document_type;
  if (type === null) return refuse('of unknown DIAN type');
  if (!(EVENT_DOCUMENT_TYPES as readonly string[]).includes(type)) return refuse(DESCRIPTIONS[type as DianDocumentType] ?? `of DIAN type ${type}`);
  if (document.dian_type_code !== null && !EVENT_TYPE_CODES.includes(document.dian_type_code)) return refuse(`of DIAN type code ${document.dian_type_code}`);
  if (document.code_scheme !== 'CUFE') return refuse(`identified by a ${document.code_scheme ?? 'code of unknown scheme'}, not a CUFE`);
  return { eligible: true };
}

/**
 * cac:DocumentReference/cbc:DocumentTypeCode of an event on this invoice, which its CUDE also
 * hashes: the invoice's own InvoiceTypeCode (02 exportación, 03 and 04 contingencia are not 01),
 * as DIAN-authorised providers write it. An invoice whose code was never recorded (imported
 * before it was read, backfilled as a sales invoice) is referenced as 01.
 */
export function referencedInvoiceTypeCode(document: { dian_type_code: string | null }): string {
  const code = document.dian_type_code?.trim();
  return code && EVENT_TYPE_CODES.includes(code) ? code : '01';
}

/**
 * Whether an event sent under the company's DIAN settings can reach this invoice. DIAN keeps two
 * separate catalogues: habilitación (its testing environment) holds only the documents validated
 * there (cbc:ProfileExecutionID 2), production only those of production (1). An event sent to one
 * about a document of the other refers to a CUFE that environment does not know, and DIAN refuses
 * it. The simulator plays either, and a document that does not say (or was not read yet) is not
 * refused.
 */
export function eventEnvironmentEligibility(settingsEnvironment: string, documentEnvironment: string | null): EventEligibility {
  const target = settingsEnvironment === 'produccion' ? 'production' : settingsEnvironment === 'habilitacion' ? 'testing' : null;
  if (target === null || (documentEnvironment !== 'production' && documentEnvironment !== 'testing') || documentEnvironment === target) {
    return { eligible: true };
  }
  const documentSide = documentEnvironment === 'testing' ? "DIAN's habilitación (testing) environment, cbc:ProfileExecutionID 2" : "DIAN's production environment, cbc:ProfileExecutionID 1";
  return {
    eligible: false,
    reason:
      `This invoice was validated in ${documentSide}, but the company's DIAN settings send events to ${settingsEnvironment}, ` +
      'whose catalogue does not hold it: DIAN would refuse the event. Send it with settings of the environment that validated the invoice.',
  };
}
