/**
 * UBL 2.1 ApplicationResponse for the buyer's RADIAN events on a received sales invoice:
 * 030 acuse de recibo, 032 recibo del bien y/o prestación del servicio, 033 aceptación expresa
 * (Anexo técnico Factura Electrónica de Venta v1.9, ApplicationResponse / eventos).
 * The output is unsigned: the second ext:UBLExtension is left empty for the XAdES signature
 * (see xades.ts). Pure: no I/O.
 */
import { nitCheckDigit } from '../nit';
import { eventCude, softwareSecurityCode, type BuyerEventCode } from './cude';
import { dianDocumentSearchUrl, type DianEnvironment } from './catalogue';

export const NS = {
  applicationResponse: 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  ext: 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2',
  sts: 'dian:gov:co:facturaelectronica:Structures-2-1',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xades: 'http://uri.etsi.org/01903/v1.3.2#',
  xades141: 'http://uri.etsi.org/01903/v1.4.1#',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
} as const;

/** NIT of DIAN, the only valid sts:AuthorizationProviderID. */
export const DIAN_NIT = '800197268';
export const PROFILE_ID = 'DIAN 2.1: ApplicationResponse de la Factura Electrónica de Venta';
const DIAN_AGENCY = 'schemeAgencyID="195" schemeAgencyName="CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)"';

/** cbc:Description of each event, worded as in DIAN's RADIAN toolbox examples. */
const DESCRIPTIONS: Record<string, string> = {
  '030': 'Acuse de recibo de Factura Electrónica de Venta',
  '031': 'Reclamo de la Factura Electrónica de Venta',
  '032': 'Recibo del bien y/o prestación del servicio',
  '033': 'Aceptación expresa',
  '034': 'Aceptación tácita',
};

/**
 * sts:QRCode of an event: DIAN's catalogue page of the referenced invoice (habilitación's
 * catalogo-vpfe-hab for testing, catalogo-vpfe for production), keyed by its CUFE.
 */
export function eventQrCode(environment: DianEnvironment, cufe: string): string {
  return dianDocumentSearchUrl(environment, cufe);
}

/**
 * schemeVersionID of a party (1 persona jurídica, 2 persona natural) when it can be told: a
 * company's person type, or an identification that only natural persons have (anything but a
 * NIT, e.g. 13 cédula). A NIT alone does not tell, so undefined.
 */
export function organizationTypeOf(party: { personType?: string | null; idType?: string | null }): '1' | '2' | undefined {
  if (party.personType === 'LEGAL') return '1';
  if (party.personType === 'NATURAL') return '2';
  if (party.idType && party.idType !== '31') return '2';
  return undefined;
}

/** Events whose ApplicationResponse must name the person who issues it (cac:IssuerParty/cac:Person). */
export const EVENTS_REQUIRING_ISSUER: readonly BuyerEventCode[] = ['030', '032'];

/** Name of a RADIAN event code (030..034). Throws a RangeError for any other code. */
export function eventDescription(code: string): string {
  const description = DESCRIPTIONS[code];
  if (!description) throw new RangeError(`unknown DIAN event code ${JSON.stringify(code)}`);
  return description;
}

export class ApplicationResponseError extends Error {
  constructor(
    readonly code: 'issuer_required' | 'invalid_field',
    message: string,
  ) {
    super(message);
    this.name = 'ApplicationResponseError';
  }
}

export type ApplicationResponseParty = {
  /** cbc:RegistrationName (razón social). */
  name: string;
  /** Identification number without check digit. */
  nit: string;
  /** Check digit; computed with DIAN's modulo 11 when idType is '31' (NIT) and it is absent. */
  dv?: string;
  /** DIAN identification type (schemeName), '31' = NIT by default. */
  idType?: string;
  /** schemeVersionID: '1' persona jurídica, '2' persona natural; omitted when absent. */
  organizationType?: '1' | '2';
};

export type EventIssuer = {
  /** DIAN identification type code (schemeName), e.g. '13' cédula de ciudadanía, '31' NIT. */
  idType: string;
  idNumber: string;
  firstName: string;
  familyName: string;
  jobTitle: string;
  department?: string;
};

export type ApplicationResponseInput = {
  responseCode: BuyerEventCode;
  /** Event number (cbc:ID), unique per sender. */
  id: string;
  /** YYYY-MM-DD (Colombia). */
  issueDate: string;
  /** HH:MM:SS, optionally with its offset; '-05:00' is appended when there is none. */
  issueTime: string;
  environment: 'production' | 'testing';
  /** The buyer company that issues the event. */
  sender: ApplicationResponseParty;
  /** The supplier that issued the invoice. */
  receiver: ApplicationResponseParty;
  software: { providerNit: string; providerDv?: string; softwareId: string; pin: string };
  invoice: { number: string; cufe: string; documentTypeCode?: string };
  /** Required for 030 and 032. */
  issuer?: EventIssuer;
  /** cbc:Description of the response; eventDescription(responseCode) by default. */
  description?: string;
  /** sts:QRCode content, omitted when absent. */
  qrCode?: string;
  notes?: string[];
};

/** Escapes text and attribute values; rejects characters XML 1.0 cannot carry. */
export function escapeXml(value: string): string {
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(value)) {
    throw new ApplicationResponseError('invalid_field', `text contains characters XML cannot carry: ${JSON.stringify(value)}`);
  }
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#xD;');
}

function element(name: string, text: string, attributes: Record<string, string | undefined> = {}): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeXml(value)}"`)
    .join('');
  return `<${name}${attrs}>${escapeXml(text)}</${name}>`;
}

function required(value: string | undefined, field: string, pattern?: RegExp): string {
  if (value === undefined || value.trim() === '') throw new ApplicationResponseError('invalid_field', `${field} is required`);
  if (pattern && !pattern.test(value)) {
    throw new ApplicationResponseError('invalid_field', `${field} has an invalid value ${JSON.stringify(value)}`);
  }
  return value;
}

/** The NIT's check digit; none for other identification types (schemeID is "DV del NIT"), whatever was stored. */
function checkDigit(nit: string, idType: string, given: string | undefined, field: string): string | undefined {
  if (idType !== '31') return undefined;
  if (given !== undefined) return required(given, `${field}.dv`, /^[0-9]$/);
  try {
    return nitCheckDigit(nit);
  } catch (error) {
    throw new ApplicationResponseError('invalid_field', `${field}.nit: ${(error as Error).message}`);
  }
}

/** IssueTime as written in the XML (and hashed into the CUDE). */
export function normaliseIssueTime(issueTime: string): string {
  required(issueTime, 'issueTime', /^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$/);
  return /(Z|[+-][0-9]{2}:[0-9]{2})$/.test(issueTime) ? issueTime : `${issueTime}-05:00`;
}

function party(tag: 'SenderParty' | 'ReceiverParty', value: ApplicationResponseParty): string {
  const idType = required(value.idType ?? '31', `${tag}.idType`, /^[0-9]{2}$/);
  const nit = required(value.nit, `${tag}.nit`, /^[0-9A-Za-z-]{3,20}$/);
  const dv = checkDigit(nit, idType, value.dv, tag);
  return (
    `<cac:${tag}><cac:PartyTaxScheme>` +
    element('cbc:RegistrationName', required(value.name, `${tag}.name`)) +
    element('cbc:CompanyID', nit, {
      schemeAgencyID: '195',
      schemeAgencyName: 'CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)',
      schemeID: dv,
      schemeName: idType,
      schemeVersionID: value.organizationType,
    }) +
    `<cac:TaxScheme>${element('cbc:ID', '01')}${element('cbc:Name', 'IVA')}</cac:TaxScheme>` +
    `</cac:PartyTaxScheme></cac:${tag}>`
  );
}

function issuerParty(issuer: EventIssuer): string {
  const idType = required(issuer.idType, 'issuer.idType', /^[0-9]{2}$/);
  const idNumber = required(issuer.idNumber, 'issuer.idNumber', /^[0-9A-Za-z-]{3,20}$/);
  const dv = idType === '31' ? checkDigit(idNumber, idType, undefined, 'issuer') : undefined;
  return (
    '<cac:IssuerParty><cac:Person>' +
    element('cbc:ID', idNumber, { schemeID: dv, schemeName: idType }) +
    element('cbc:FirstName', required(issuer.firstName, 'issuer.firstName')) +
    element('cbc:FamilyName', required(issuer.familyName, 'issuer.familyName')) +
    element('cbc:JobTitle', required(issuer.jobTitle, 'issuer.jobTitle')) +
    (issuer.department ? element('cbc:OrganizationDepartment', issuer.department) : '') +
    '</cac:Person></cac:IssuerParty>'
  );
}

/** The CUDE the builder writes into cbc:UUID for this input. */
export function applicationResponseCude(input: ApplicationResponseInput): string {
  return eventCude({
    id: input.id,
    issueDate: input.issueDate,
    issueTime: normaliseIssueTime(input.issueTime),
    senderNit: input.sender.nit,
    receiverNit: input.receiver.nit,
    responseCode: input.responseCode,
    referencedDocumentId: input.invoice.number,
    documentTypeCode: input.invoice.documentTypeCode ?? '01',
    softwarePin: input.software.pin,
  });
}

function dianExtensions(input: ApplicationResponseInput): string {
  const providerNit = required(input.software.providerNit, 'software.providerNit', /^[0-9]{5,15}$/);
  const providerDv = checkDigit(providerNit, '31', input.software.providerDv, 'software.provider');
  const softwareId = required(input.software.softwareId, 'software.softwareId');
  const pin = required(input.software.pin, 'software.pin');
  return (
    '<sts:DianExtensions>' +
    '<sts:InvoiceSource><cbc:IdentificationCode listAgencyID="6" listAgencyName="United Nations Economic Commission for Europe" listSchemeURI="urn:oasis:names:specification:ubl:codelist:gc:CountryIdentificationCode-2.1">CO</cbc:IdentificationCode></sts:InvoiceSource>' +
    '<sts:SoftwareProvider>' +
    `<sts:ProviderID ${DIAN_AGENCY} schemeID="${escapeXml(providerDv ?? '')}" schemeName="31">${escapeXml(providerNit)}</sts:ProviderID>` +
    `<sts:SoftwareID ${DIAN_AGENCY}>${escapeXml(softwareId)}</sts:SoftwareID>` +
    '</sts:SoftwareProvider>' +
    `<sts:SoftwareSecurityCode ${DIAN_AGENCY}>${softwareSecurityCode(softwareId, pin, input.id)}</sts:SoftwareSecurityCode>` +
    `<sts:AuthorizationProvider><sts:AuthorizationProviderID ${DIAN_AGENCY} schemeID="4" schemeName="31">${DIAN_NIT}</sts:AuthorizationProviderID></sts:AuthorizationProvider>` +
    (input.qrCode ? element('sts:QRCode', input.qrCode) : '') +
    '</sts:DianExtensions>'
  );
}

/**
 * Builds the unsigned ApplicationResponse XML (UTF-8 declaration, no insignificant whitespace).
 * Throws ApplicationResponseError: 'issuer_required' when a 030/032 event has no issuer,
 * 'invalid_field' for a missing or malformed value.
 */
export function buildApplicationResponse(input: ApplicationResponseInput): string {
  if (!['030', '032', '033'].includes(input.responseCode)) {
    throw new ApplicationResponseError('invalid_field', `responseCode must be 030, 032 or 033, got ${JSON.stringify(input.responseCode)}`);
  }
  if (EVENTS_REQUIRING_ISSUER.includes(input.responseCode) && !input.issuer) {
    throw new ApplicationResponseError(
      'issuer_required',
      `event ${input.responseCode} (${eventDescription(input.responseCode)}) must identify the person who issues it (issuer)`,
    );
  }
  required(input.id, 'id', /^[0-9A-Za-z-]{1,40}$/);
  required(input.issueDate, 'issueDate', /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/);
  required(input.invoice.number, 'invoice.number');
  required(input.invoice.cufe, 'invoice.cufe', /^[0-9a-fA-F]{40,128}$/);
  const documentTypeCode = required(input.invoice.documentTypeCode ?? '01', 'invoice.documentTypeCode', /^[0-9]{2}$/);
  const profileExecutionId = input.environment === 'production' ? '1' : '2';
  const issueTime = normaliseIssueTime(input.issueTime);
  const root = [
    `xmlns="${NS.applicationResponse}"`,
    ...(['cac', 'cbc', 'ds', 'ext', 'sts', 'xades', 'xades141', 'xsi'] as const).map((prefix) => `xmlns:${prefix}="${NS[prefix]}"`),
    `xsi:schemaLocation="${NS.applicationResponse} http://docs.oasis-open.org/ubl/os-UBL-2.1/xsd/maindoc/UBL-ApplicationResponse-2.1.xsd"`,
  ].join(' ');
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>' +
    `<ApplicationResponse ${root}>` +
    '<ext:UBLExtensions>' +
    `<ext:UBLExtension><ext:ExtensionContent>${dianExtensions(input)}</ext:ExtensionContent></ext:UBLExtension>` +
    '<ext:UBLExtension><ext:ExtensionContent></ext:ExtensionContent></ext:UBLExtension>' +
    '</ext:UBLExtensions>' +
    element('cbc:UBLVersionID', 'UBL 2.1') +
    element('cbc:CustomizationID', '1') +
    element('cbc:ProfileID', PROFILE_ID) +
    element('cbc:ProfileExecutionID', profileExecutionId) +
    element('cbc:ID', input.id) +
    element('cbc:UUID', applicationResponseCude(input), { schemeID: profileExecutionId, schemeName: 'CUDE-SHA384' }) +
    element('cbc:IssueDate', input.issueDate) +
    element('cbc:IssueTime', issueTime) +
    (input.notes ?? []).map((note) => element('cbc:Note', note)).join('') +
    party('SenderParty', input.sender) +
    party('ReceiverParty', input.receiver) +
    '<cac:DocumentResponse>' +
    '<cac:Response>' +
    element('cbc:ResponseCode', input.responseCode) +
    element('cbc:Description', input.description ?? eventDescription(input.responseCode)) +
    '</cac:Response>' +
    '<cac:DocumentReference>' +
    element('cbc:ID', input.invoice.number) +
    element('cbc:UUID', input.invoice.cufe, { schemeName: 'CUFE-SHA384' }) +
    element('cbc:DocumentTypeCode', documentTypeCode) +
    '</cac:DocumentReference>' +
    (input.issuer && EVENTS_REQUIRING_ISSUER.includes(input.responseCode) ? issuerParty(input.issuer) : '') +
    '</cac:DocumentResponse>' +
    '</ApplicationResponse>'
  );
}
