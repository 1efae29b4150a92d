/**
 * AccountingSupplierParty / AccountingCustomerParty → UblParty.
 */
import { isValidNit, nitCheckDigit } from '../nit';
import { UblParseError, type UblParty } from './types';
import { all, attribute, first, text, type XmlElement } from './xml-tree';

/** Where the identification number is looked for, in order of preference. */
const ID_PATHS = ['PartyTaxScheme/CompanyID', 'PartyLegalEntity/CompanyID', 'PartyIdentification/ID'] as const;
const NAME_PATHS = ['PartyTaxScheme/RegistrationName', 'PartyLegalEntity/RegistrationName', 'PartyName/Name'] as const;
const ADDRESS_PATHS = ['PhysicalLocation/Address', 'PartyTaxScheme/RegistrationAddress', 'PartyLegalEntity/RegistrationAddress'] as const;

const NIT_TYPE = '31';
/** DIAN's identification types that are numbers only: registro civil (11), tarjeta de identidad (12), cédula de ciudadanía (13). */
const DIGITS_ONLY_ID_TYPES = new Set(['11', '12', '13']);

type Identification = { idNumber: string; dv: string | null; idType: string | null };

function compact(value: string): string {
  return value.replace(/\s+/g, '');
}

/**
 * Reads the identification: number from the first non-empty candidate, check digit from its
 * schemeID (or from another candidate carrying the same number, or from a '-D' suffix), type
 * from schemeName. NITs are reduced to their digits ('800.197.268-4' → '800197268' + dv '4').
 */
function identification(party: XmlElement, role: string): Identification {
  const candidates = ID_PATHS.flatMap((path) => all(party, path)).filter((node) => node.text !== '');
  const chosen = candidates[0];
  if (!chosen) throw new UblParseError('missing_field', `${role} id (PartyTaxScheme/CompanyID, PartyLegalEntity/CompanyID or PartyIdentification/ID)`);
  const raw = compact(chosen.text);
  const sameNumber = candidates.filter((node) => compact(node.text) === raw);
  const schemeName = attribute(chosen, 'schemeName') ?? sameNumber.map((node) => attribute(node, 'schemeName')).find(Boolean) ?? null;
  const schemeId = attribute(chosen, 'schemeID') ?? sameNumber.map((node) => attribute(node, 'schemeID')).find(Boolean) ?? null;
  // UBL 2.1 (DIAN since 2019) writes the check digit in schemeID and the id type in schemeName;
  // the first version (fe:Invoice, until 2020) wrote the id type in schemeID: two digits, never a
  // check digit, which is one.
  const typeInSchemeId = schemeName === null && schemeId !== null && /^\d{2}$/.test(schemeId);
  const idType = schemeName ?? (typeInSchemeId ? schemeId : null);
  // schemeID is the NIT's check digit (Anexo técnico 1.9: only with schemeName 31); software that
  // writes one on a cédula (apidian-go: schemeName="13" schemeID="1") gives no check digit.
  let dv = schemeId !== null && !typeInSchemeId && (idType === null || idType === NIT_TYPE) ? schemeId : null;
  let idNumber = raw;
  const looksLikeNit = idType === NIT_TYPE || (idType === null && /^[\d.]+(-\d)?$/.test(raw));
  if (looksLikeNit) {
    const withDv = /^([\d.]+)-(\d)$/.exec(raw);
    if (withDv) {
      dv = dv ?? withDv[2];
      idNumber = withDv[1];
    }
    const digits = idNumber.replace(/\D/g, '');
    if (digits !== '') idNumber = digits;
    // A first-version NIT, or one written without its schemeID, carries no check digit of its own:
    // it is computed, as DIAN does (it is a function of the number).
    if (dv === null && (typeInSchemeId || idType === NIT_TYPE) && isValidNit(idNumber)) dv = nitCheckDigit(idNumber);
  } else if (idType !== null && DIGITS_ONLY_ID_TYPES.has(idType) && /^[\d.\s-]+$/.test(raw)) {
    // A cédula or a tarjeta de identidad is a number: '79.845.123' and '79845123' are one person
    // (kept as written, one supplier became two contacts).
    idNumber = raw.replace(/\D/g, '');
  }
  return { idNumber, dv, idType };
}

function personName(party: XmlElement): string | null {
  const person = first(party, 'Person');
  if (!person) return null;
  const parts = ['FirstName', 'MiddleName', 'FamilyName'].map((name) => text(person, name)).filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

function addressField(addresses: XmlElement[], read: (address: XmlElement) => string | null): string | null {
  for (const address of addresses) {
    const value = read(address);
    if (value) return value;
  }
  return null;
}

/**
 * Extracts a party from the element wrapping cac:Party (AccountingSupplierParty or
 * AccountingCustomerParty). `role` names the party in error messages ('supplier', 'customer').
 */
export function readParty(wrapper: XmlElement | null, role: string): UblParty {
  const party = first(wrapper, 'Party');
  if (!party) throw new UblParseError('missing_field', `${role} party (cac:Party)`);
  const id = identification(party, role);
  const organizationType = text(wrapper, 'AdditionalAccountID');
  const name = NAME_PATHS.map((path) => text(party, path)).find(Boolean) ?? personName(party) ?? '';
  const addresses = ADDRESS_PATHS.flatMap((path) => all(party, path));
  return {
    ...id,
    personType: organizationType === '1' ? 'LEGAL' : organizationType === '2' ? 'NATURAL' : null,
    name,
    email: text(party, 'Contact/ElectronicMail'),
    phone: text(party, 'Contact/Telephone'),
    address: addressField(addresses, (address) => {
      const lines = all(address, 'AddressLine/Line').map((line) => line.text).filter(Boolean);
      return lines.length ? lines.join(', ') : null;
    }),
    city: addressField(addresses, (address) => text(address, 'CityName')),
    countryCode: addressField(addresses, (address) => text(address, 'Country/IdentificationCode')),
  };
}
