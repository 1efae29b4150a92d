/**
 * File names and the ZIP DIAN's web service (SendEventUpdateStatus / SendBillSync) takes for a
 * signed event. Naming per the Anexo técnico v1.9, sections 6.5.7-6.5.8 ("Nombre de los
 * archivos"): {prefix}{NIT, 10 digits}{PPP}{AA}{consecutivo, 8 hex digits}.xml, and the ZIP
 * 'z' + the same stem + '.zip', where prefix 'ar' is ApplicationResponse, PPP the software code
 * ('000' own software, '001' DIAN's free software) and AA the last two digits of the year; the
 * consecutive restarts at 1 every 1 January. Pure: no I/O.
 */
import AdmZip from 'adm-zip';

export class EventPackageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventPackageError';
  }
}

export type EventFileNameInput = {
  /** NIT of the party sending the event (the buyer), without check digit. */
  senderNit: string;
  /** Year of issue (4 digits). */
  year: number;
  /** Consecutive of ApplicationResponse files sent by this NIT this year, from 1. */
  sequence: number;
  /** 'PPP' code: '000' own software or provider (default), '001' DIAN's free software. */
  softwareCode?: string;
};

function stem(input: EventFileNameInput): string {
  if (!/^[0-9]{5,10}$/.test(input.senderNit)) throw new EventPackageError(`senderNit must be 5 to 10 digits, got ${JSON.stringify(input.senderNit)}`);
  if (!Number.isInteger(input.year) || input.year < 2000 || input.year > 2099) throw new EventPackageError(`invalid year ${input.year}`);
  if (!Number.isInteger(input.sequence) || input.sequence < 1 || input.sequence > 0xffffffff) {
    throw new EventPackageError(`sequence must be an integer from 1 to ${0xffffffff}, got ${input.sequence}`);
  }
  const softwareCode = input.softwareCode ?? '000';
  if (!/^[0-9]{3}$/.test(softwareCode)) throw new EventPackageError(`softwareCode must be 3 digits, got ${JSON.stringify(softwareCode)}`);
  const year = String(input.year % 100).padStart(2, '0');
  const sequence = input.sequence.toString(16).padStart(8, '0');
  return `${input.senderNit.padStart(10, '0')}${softwareCode}${year}${sequence}`;
}

/** Name of the event's XML inside the ZIP, e.g. 'ar09001082810002400000001.xml'. */
export function eventFileName(input: EventFileNameInput): string {
  return `ar${stem(input)}.xml`;
}

/** Name of the ZIP, e.g. 'z09001082810002400000001.zip'. */
export function eventZipFileName(input: EventFileNameInput): string {
  return `z${stem(input)}.zip`;
}

/** A ZIP holding exactly the signed event XML (UTF-8, bytes unchanged) under fileName. */
export function packageEvent(signedXml: string, fileName: string): Buffer {
  if (!/^[A-Za-z0-9_-]{1,96}\.xml$/.test(fileName)) {
    throw new EventPackageError(`fileName must be a plain name ending in .xml, got ${JSON.stringify(fileName)}`);
  }
  if (!signedXml.trimStart().startsWith('<')) throw new EventPackageError('signedXml is not XML text');
  const zip = new AdmZip();
  zip.addFile(fileName, Buffer.from(signedXml, 'utf8'));
  return zip.toBuffer();
}
