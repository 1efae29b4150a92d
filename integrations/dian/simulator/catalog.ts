/**
 * The simulator's state and DIAN-like business rules: documents by CUFE, events registered
 * against them, SendEventUpdateStatus validation. Codes/texts marked CONFIRMED come from
 * DIAN's published service code; ASSUMED ones are the simulator's (see integrations/dian/README.md).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import AdmZip from 'adm-zip';
import { XMLParser } from 'fast-xml-parser';
import { addColombianBusinessDays, EXPRESS_ACCEPTANCE_BUSINESS_DAYS } from '../../../domain/dian/business-days';
import { parseUbl } from '../../../domain/ubl/parse';
import { isRecord, text } from '../soap';
import { eventsApplicationResponse, type DianResponseFields } from './responses';

export type VerifyApplicationResponse = (xml: string) => { valid: boolean; reason?: string };

export type DocumentMeta = { receiverNit: string; issueDate: string; documentType: string; senderNit?: string };
export type CatalogDocument = DocumentMeta & { cufe: string; xml: Buffer };
export type RegisteredEvent = { code: string; description: string; cude: string; senderNit: string; id: string; date: string; time: string };
/** An event registered elsewhere (DIAN's portal, another provider's software). */
export type ForeignEvent = { code: string; id: string; senderNit: string; cude: string; date?: string; time?: string };

/** Names of the buyer-side events (annex 1.9, RADIAN). */
export const EVENT_DESCRIPTIONS: Record<string, string> = {
  '030': 'Acuse de recibo de Factura Electrónica de Venta',
  '031': 'Reclamo de la Factura Electrónica de Venta',
  '032': 'Recibo del bien y/o prestación del servicio',
  '033': 'Aceptación expresa',
};

/** Which event must already be registered before each one (ASSUMED rule IDs, real ordering). */
const PREREQUISITE: Record<string, string | undefined> = { '030': undefined, '031': '032', '032': '030', '033': '032' };
const EXCLUSIVE: Record<string, string | undefined> = { '031': '033', '033': '031' };

// CONFIRMED texts (DIAN service code): 89 zip errors, ZB01, rule 90, the 99 status pair.
const REJECTED = { statusDescription: 'Validación contiene errores en campos mandatorios.', statusMessage: 'Documento con errores en campos mandatorios.' };
const MSG = {
  zipEmpty: 'Error descomprimiendo el archivo ZIP: No fue encontrado ningun documento XML valido.',
  zipMany: 'Encontrados mas de un XML descomprimiendo el archivo ZIP: Se debe enviar solo un fichero XML.',
  schema: 'Regla: ZB01, Rechazo: Fallo en el esquema XML del archivo',
  duplicateCude: 'Regla: 90, Rechazo: Documento procesado anteriormente.',
  // ASSUMED (simulator's own rule IDs; DIAN's event rule IDs not confirmed):
  signature: (reason: string) => `Regla: ZE02, Rechazo: Firma del ApplicationResponse inválida: ${reason}`,
  unknownDocument: (cufe: string) => `Regla: LGC03, Rechazo: El documento referenciado con CUFE ${cufe} no existe en los registros de la DIAN.`,
  unsupported: (code: string) => `Regla: LGC06, Rechazo: El evento ${code} no está soportado.`,
  notBuyer: (nit: string) => `Regla: LGC05, Rechazo: El NIT ${nit} que genera el evento no es el adquiriente de la factura.`,
  duplicateEvent: (code: string) => `Regla: LGC01, Rechazo: Solo se puede transmitir un evento ${code} por factura; evento registrado previamente.`,
  missingPrior: (code: string, prior: string) =>
    `Regla: LGC02, Rechazo: No se puede registrar el evento ${code} sin haber registrado previamente el evento ${prior} (${EVENT_DESCRIPTIONS[prior]}).`,
  // Rule ID DC24c as the review found it in DIAN's validator; the text is the simulator's.
  tacit: (deadline: string) =>
    `Regla: DC24c, Rechazo: La aceptación expresa debe registrarse dentro de los 3 días hábiles siguientes al evento 032 (plazo: ${deadline}); la factura fue aceptada tácitamente.`,
  exclusive: (code: string, other: string) => `Regla: LGC04, Rechazo: No se puede registrar el evento ${code}: la factura ya tiene el evento ${other}.`,
};

const arParser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false, trimValues: true, isArray: (name) => name === 'DocumentResponse' });

type ParsedEvent = { cude: string; id: string; code: string; cufe: string; senderNit: string };

function parseApplicationResponse(xml: string): ParsedEvent {
  const root = (arParser.parse(xml) as Record<string, unknown>)['ApplicationResponse'];
  if (!isRecord(root)) throw new Error('root is not ApplicationResponse');
  const documentResponse = Array.isArray(root['DocumentResponse']) ? root['DocumentResponse'][0] : undefined;
  if (!isRecord(documentResponse)) throw new Error('no cac:DocumentResponse');
  const response = isRecord(documentResponse['Response']) ? documentResponse['Response'] : {};
  const reference = isRecord(documentResponse['DocumentReference']) ? documentResponse['DocumentReference'] : {};
  const sender = isRecord(root['SenderParty']) && isRecord(root['SenderParty']['PartyTaxScheme']) ? root['SenderParty']['PartyTaxScheme'] : {};
  const parsed = {
    cude: text(root['UUID']).toLowerCase(),
    id: text(root['ID']),
    code: text(response['ResponseCode']),
    cufe: text(reference['UUID']).toLowerCase(),
    senderNit: text(sender['CompanyID']),
  };
  if (!parsed.cude || !parsed.code || !parsed.cufe) throw new Error('missing UUID, ResponseCode or DocumentReference/UUID');
  return parsed;
}

export function colombiaNow(now: Date): { date: string; time: string } {
  const iso = new Date(now.getTime() - 5 * 3_600_000).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

const rejected = (errors: string[], key: string | null = null): DianResponseFields => ({ isValid: false, statusCode: '99', ...REJECTED, errors, xmlDocumentKey: key });

type CatalogState = { documents: (DocumentMeta & { cufe: string; xml: string })[]; events: Record<string, RegisteredEvent[]> };

export class DianCatalog {
  readonly documents = new Map<string, CatalogDocument>();
  readonly eventsByCufe = new Map<string, RegisteredEvent[]>();
  /** DIAN's duplicate key, sender NIT + event type + event number → the CUDE registered first. */
  private readonly byNumber = new Map<string, string>();

  /**
   * stateFile: where the catalogue survives restarts (JSON, rewritten after every change), as
   * DIAN remembers documents and events; without it the catalogue lives in memory only.
   */
  constructor(private readonly stateFile?: string) {
    if (!stateFile) return;
    let state: CatalogState;
    try {
      state = JSON.parse(readFileSync(stateFile, 'utf8')) as CatalogState;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const { cufe, xml, ...meta } of state.documents) this.documents.set(cufe, { ...meta, cufe, xml: Buffer.from(xml, 'base64') });
    for (const [cufe, events] of Object.entries(state.events)) {
      this.eventsByCufe.set(cufe, events);
      for (const event of events) this.byNumber.set(DianCatalog.numberKey(event.senderNit, event.code, event.id), event.cude);
    }
  }

  private save(): void {
    if (!this.stateFile) return;
    const state: CatalogState = {
      documents: [...this.documents.values()].map(({ xml, ...rest }) => ({ ...rest, xml: xml.toString('base64') })),
      events: Object.fromEntries(this.eventsByCufe),
    };
    mkdirSync(path.dirname(this.stateFile), { recursive: true });
    writeFileSync(`${this.stateFile}.tmp`, JSON.stringify(state));
    renameSync(`${this.stateFile}.tmp`, this.stateFile);
  }

  private static numberKey(senderNit: string, code: string, id: string): string {
    return `${senderNit}|${code}|${id}`;
  }

  /**
   * Registers an event as if it had arrived through DIAN's portal or another provider's software
   * (no validation): GetStatusEvent lists it and it takes its number. Simulator only.
   */
  registerEvent(cufe: string, event: ForeignEvent, now: Date = new Date()): void {
    const key = cufe.toLowerCase();
    const when = colombiaNow(now);
    this.byNumber.set(DianCatalog.numberKey(event.senderNit, event.code, event.id), event.cude.toLowerCase());
    this.eventsByCufe.set(key, [
      ...this.events(key),
      {
        code: event.code,
        description: EVENT_DESCRIPTIONS[event.code] ?? `Evento ${event.code}`,
        cude: event.cude.toLowerCase(),
        senderNit: event.senderNit,
        id: event.id,
        date: event.date ?? when.date,
        time: event.time ?? when.time,
      },
    ]);
    this.save();
  }

  addDocument(cufe: string, xml: string | Buffer, meta: DocumentMeta): void {
    const key = cufe.toLowerCase();
    this.documents.set(key, { ...meta, cufe: key, xml: Buffer.isBuffer(xml) ? xml : Buffer.from(xml, 'utf8') });
    this.save();
  }

  /**
   * Adds one UBL document (Invoice/CreditNote/DebitNote, bare or in an AttachedDocument), its
   * parties, date and type read from the XML. Returns its CUFE/CUDE; throws UblParseError.
   */
  addUbl(xml: Buffer): { cufe: string; documentType: string } {
    const typeCodes = { Invoice: '01', CreditNote: '91', DebitNote: '92' } as const;
    const { document } = parseUbl(xml);
    const documentType = document.documentType === 'Invoice' ? (document.typeCode ?? '01') : typeCodes[document.documentType];
    this.addDocument(document.cufe, xml, {
      receiverNit: document.customer.idNumber,
      senderNit: document.supplier.idNumber,
      issueDate: document.issueDate,
      documentType,
    });
    return { cufe: document.cufe.toLowerCase(), documentType };
  }

  /** Seeds from UBL files (see addUbl). */
  seedFromFiles(paths: readonly string[]): void {
    for (const file of paths) this.addUbl(readFileSync(file));
  }

  /** Every document, in insertion order. */
  allDocuments(): CatalogDocument[] {
    return [...this.documents.values()];
  }

  events(cufe: string): RegisteredEvent[] {
    return [...(this.eventsByCufe.get(cufe.toLowerCase()) ?? [])];
  }

  getXml(trackId: string): { code: string; message: string; xmlBytesBase64?: string } {
    const key = trackId.toLowerCase();
    const document = this.documents.get(key);
    // CONFIRMED: 404 / "Xml con CUFE: '…' no encontrado." and 100 / "Accion completada OK".
    if (!document) return { code: '404', message: `Xml con CUFE: '${key}' no encontrado.` };
    return { code: '100', message: 'Accion completada OK', xmlBytesBase64: document.xml.toString('base64') };
  }

  statusEvent(trackId: string): DianResponseFields {
    const key = trackId.toLowerCase();
    // CONFIRMED: 66 unknown trackId, 67 no events, 00 with an ApplicationResponse listing them.
    if (!this.documents.has(key)) {
      return { isValid: false, statusCode: '66', statusDescription: 'TrackId no existe en los registros de la DIAN.' };
    }
    const events = this.events(key);
    if (events.length === 0) {
      return { isValid: false, statusCode: '67', statusDescription: 'EL CUFE o Factura consultada no tiene a la fecha eventos asociados.', xmlDocumentKey: key };
    }
    const xml = eventsApplicationResponse(key, events);
    return {
      isValid: true,
      statusCode: '00',
      statusDescription: 'Procesado Correctamente.',
      xmlBase64Bytes: Buffer.from(xml, 'utf8').toString('base64'),
      xmlDocumentKey: key,
    };
  }

  listReceived(range: { companyNit: string; from: string; to: string; documentType: string }): CatalogDocument[] {
    return [...this.documents.values()]
      .filter((d) => d.receiverNit === range.companyNit && d.issueDate >= range.from && d.issueDate <= range.to)
      .filter((d) => !range.documentType || d.documentType === range.documentType)
      .sort((a, b) => a.issueDate.localeCompare(b.issueDate) || a.cufe.localeCompare(b.cufe));
  }

  sendEvent(contentFileBase64: string, verify: VerifyApplicationResponse, now: Date): DianResponseFields {
    let entries: AdmZip.IZipEntry[];
    try {
      entries = new AdmZip(Buffer.from(contentFileBase64, 'base64')).getEntries().filter((e) => !e.isDirectory && /\.xml$/i.test(e.entryName));
    } catch {
      entries = [];
    }
    if (entries.length !== 1) {
      return { isValid: false, statusCode: '89', statusDescription: '', statusMessage: entries.length ? MSG.zipMany : MSG.zipEmpty };
    }
    const entry = entries[0]!;
    const xml = entry.getData().toString('utf8');
    let event: ParsedEvent;
    try {
      event = parseApplicationResponse(xml);
    } catch (error) {
      return { ...rejected([MSG.schema]), statusMessage: `Validación contiene errores en campos mandatorios. ${(error as Error).message}` };
    }
    const verdict = verify(xml);
    if (!verdict.valid) return rejected([MSG.signature(verdict.reason ?? 'firma no válida')], event.cude);
    // CONFIRMED behaviour: the duplicate check is keyed by sender NIT + event type + event
    // number, and XmlDocumentKey carries the key of the document registered first.
    const earlier = this.byNumber.get(DianCatalog.numberKey(event.senderNit, event.code, event.id));
    if (earlier) return rejected([MSG.duplicateCude], earlier);

    const document = this.documents.get(event.cufe);
    if (!document) return rejected([MSG.unknownDocument(event.cufe)], event.cude);
    if (!(event.code in PREREQUISITE)) return rejected([MSG.unsupported(event.code)], event.cude);
    if (event.senderNit && document.receiverNit && event.senderNit !== document.receiverNit) {
      return rejected([MSG.notBuyer(event.senderNit)], event.cude);
    }
    const registered = this.events(event.cufe);
    const has = (code: string) => registered.some((e) => e.code === code);
    if (has(event.code)) return rejected([MSG.duplicateEvent(event.code)], event.cude);
    const prior = PREREQUISITE[event.code];
    if (prior && !has(prior)) return rejected([MSG.missingPrior(event.code, prior)], event.cude);
    const other = EXCLUSIVE[event.code];
    if (other && has(other)) return rejected([MSG.exclusive(event.code, other)], event.cude);
    if (event.code === '033') {
      const receipt = registered.find((e) => e.code === '032')!;
      const deadline = addColombianBusinessDays(receipt.date, EXPRESS_ACCEPTANCE_BUSINESS_DAYS);
      if (colombiaNow(now).date > deadline) return rejected([MSG.tacit(deadline)], event.cude);
    }

    this.registerEvent(event.cufe, event, now);
    return {
      isValid: true,
      statusCode: '00',
      statusDescription: 'Procesado Correctamente.',
      statusMessage: `La Application response ${event.id}, ha sido autorizada.`,
      xmlDocumentKey: event.cude,
      xmlFileName: entry.entryName.split('/').pop() ?? entry.entryName,
    };
  }
}
