/**
 * Display text for the parts of a UBL document that are not amounts: titles, party
 * identification (NIT with its check digit), dates in Colombian time, tax scheme names.
 */
import { isValidNit, nitCheckDigit } from '../nit';
import type { DianDocumentType, UblDocument, UblExchangeRate, UblParty } from '../ubl/types';
import { formatQuantity } from './money';

/**
 * The title a graphic representation carries, by DIAN's document type, not by root element: a
 * documento soporte is an Invoice element, but it is the buyer's document, not a sales invoice.
 */
const DOCUMENT_TITLES: Record<DianDocumentType, { title: string; masculine?: true }> = {
  electronic_invoice: { title: 'Factura electrónica de venta' },
  export_invoice: { title: 'Factura electrónica de venta de exportación' },
  contingency_invoice: { title: 'Factura electrónica de venta (contingencia)' },
  support_document: { title: 'Documento soporte (no obligados a facturar)', masculine: true },
  pos_equivalent: { title: 'Documento equivalente electrónico POS', masculine: true },
  equivalent_document: { title: 'Documento equivalente electrónico', masculine: true },
  credit_note: { title: 'Nota crédito electrónica' },
  debit_note: { title: 'Nota débito electrónica' },
  support_document_adjustment: { title: 'Nota de ajuste del documento soporte' },
  equivalent_document_adjustment: { title: 'Nota de ajuste del documento equivalente electrónico' },
};

export function documentTitle(document: Pick<UblDocument, 'dianDocumentType'>): string {
  return DOCUMENT_TITLES[document.dianDocumentType].title;
}

/** "Representación gráfica de la factura electrónica de venta" / "… del documento soporte …". */
export function graphicRepresentationOf(document: Pick<UblDocument, 'dianDocumentType'>): string {
  const { title, masculine } = DOCUMENT_TITLES[document.dianDocumentType];
  return `Representación gráfica ${masculine ? 'del' : 'de la'} ${title.charAt(0).toLowerCase()}${title.slice(1)}`;
}

/** Short labels for DIAN's identification types (schemeName), as printed before the number. */
const ID_TYPES: Record<string, string> = {
  '11': 'Registro civil',
  '12': 'T.I.',
  '13': 'C.C.',
  '21': 'Tarjeta de extranjería',
  '22': 'C.E.',
  '31': 'NIT',
  '41': 'Pasaporte',
  '42': 'Doc. de identificación extranjero',
  '47': 'PEP',
  '48': 'PPT',
  '50': 'NIT de otro país',
  '91': 'NUIP',
};

/**
 * 'NIT 800197268-4'. The check digit is the document's own when it has one; when it is absent
 * and the party is a NIT (type 31) or of unknown type with a NIT-shaped number, it is computed
 * with DIAN's modulo 11; other identification types (C.C., passport...) are printed as they are.
 */
export function formatPartyId(party: UblParty): string {
  const idNumber = party.idNumber.trim();
  const isNit = party.idType === '31' || party.idType === null;
  const label = party.idType === null ? 'NIT' : (ID_TYPES[party.idType] ?? `Identificación (${party.idType})`);
  let dv = party.dv?.trim() || null;
  if (dv === null && isNit && isValidNit(idNumber)) dv = nitCheckDigit(idNumber);
  return `${label} ${idNumber}${dv !== null ? `-${dv}` : ''}`;
}

const COLOMBIA_OFFSET_MS = -5 * 60 * 60 * 1000; // UTC-5 all year (no daylight saving time)

/** An instant as 'dd/mm/aaaa hh:mm:ss' in Colombian time; null when it is not a valid date. */
export function formatColombianDateTime(instant: string | Date): string | null {
  const time = instant instanceof Date ? instant.getTime() : Date.parse(instant);
  if (Number.isNaN(time)) return null;
  const iso = new Date(time + COLOMBIA_OFFSET_MS).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)} ${iso.slice(11, 19)}`;
}

/**
 * cac:PaymentExchangeRate as written, every digit of the rate kept: 'Tasa de cambio USD a COP:
 * 4.015,72 (20/11/2026)'. Source and target are named as the document names them, not read as
 * '1 source = rate target': the toolbox's own COP example names COP the source and USD the target,
 * rate 5000.00, for a dollar at 5,000 pesos.
 */
export function formatExchangeRate(rate: UblExchangeRate): string {
  const date = rate.date ? ` (${formatDate(rate.date)})` : '';
  return `Tasa de cambio ${rate.sourceCurrency} a ${rate.targetCurrency}: ${formatQuantity(rate.rate)}${date}`;
}

/** 'YYYY-MM-DD' as 'dd/mm/aaaa'; anything else is returned as written. */
export function formatDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date.trim());
  return match ? `${match[3]}/${match[2]}/${match[1]}` : date.trim();
}

/**
 * Issue date and time for the header: the UTC instant shown in Colombian time, else the date
 * and time as written in the document.
 */
export function formatIssued(issuedAt: string, issueDate: string, issueTime: string | null): { date: string; time: string | null } {
  const colombian = formatColombianDateTime(issuedAt);
  if (colombian) return { date: colombian.slice(0, 10), time: `${colombian.slice(11)} (hora de Colombia)` };
  return { date: formatDate(issueDate), time: issueTime?.trim() || null };
}

const TAX_SCHEMES: Record<string, string> = {
  '01': 'IVA',
  '02': 'IC',
  '03': 'ICA',
  '04': 'INC',
  '05': 'ReteIVA',
  '06': 'ReteRenta',
  '07': 'ReteICA',
  '08': 'IC porcentual',
  '20': 'FtoHorticultura',
  '21': 'Timbre',
  '22': 'INC bolsas',
  '23': 'INCarbono',
  '24': 'INCombustibles',
  '25': 'Sobretasa combustibles',
  '26': 'Sordicom',
  '32': 'ICL',
  '33': 'INPP',
  '34': 'IBUA',
  '35': 'ICUI',
  ZZ: 'Otro',
};

/** 'IVA (01)': the document's scheme name, else DIAN's name for the scheme ID. */
export function formatTaxScheme(schemeId: string, schemeName: string | null): string {
  const name = schemeName?.trim() || TAX_SCHEMES[schemeId.trim()] || 'Impuesto';
  return `${name} (${schemeId.trim()})`;
}

