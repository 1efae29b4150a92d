/**
 * The simulator's side of DIAN's bulk download (BulkDocumentDownloadAsync, then
 * GetStatusBulkDocumentDownload with the link to a CSV) and GetDocIdentifierWithEvents. The
 * checks and their texts are those of DIAN's published service code (CONFIRMED); that DIAN
 * answers them for a company's certificate, the trackId's place and the CSV's columns are ASSUMED
 * (integrations/dian/README.md, "Bulk listing").
 */
import { randomUUID } from 'node:crypto';
import type { DianCatalog, CatalogDocument } from './catalog';
import { colombiaNow } from './catalog';
import type { DianResponseFields } from './responses';

/**
 * DIAN's limit in days (its setting BulkDocumentsDownload_QuantyMaxDaysFoDateRange, "3 meses"):
 * both the range's span and how far back its start may be.
 */
export const SIMULATED_BULK_MAX_DAYS = 90;

const GROUPS = ['todos', 'emitido', 'recibido'];
const DAY_MS = 86_400_000;

/** Names of the portal's "Tipo de documento" column by DIAN document type code. */
const TYPE_NAMES: Record<string, string> = {
  '01': 'Factura electrónica',
  '02': 'Factura electrónica de exportación',
  '03': 'Factura electrónica de contingencia facturador',
  '04': 'Factura electrónica de contingencia DIAN',
  '05': 'Documento soporte con no obligados',
  '20': 'Documento equivalente electrónico POS',
  '91': 'Nota de crédito electrónica',
  '92': 'Nota de débito electrónica',
};

const refused = (statusDescription: string): DianResponseFields => ({ isValid: false, statusCode: '89', statusDescription });

function csvOf(documents: CatalogDocument[], group: string): string {
  const rows = documents.map((document) =>
    [
      TYPE_NAMES[document.documentType] ?? document.documentType,
      document.cufe,
      document.issueDate.split('-').reverse().join('-'),
      document.senderNit ?? '',
      document.receiverNit,
      group,
    ].join(';'),
  );
  return ['Tipo de documento;CUFE/CUDE;Fecha Emisión;NIT Emisor;NIT Receptor;Grupo', ...rows].join('\r\n') + '\r\n';
}

export type BulkDownloadOptions = {
  /** How many days back a request's start may be; DIAN's is SIMULATED_BULK_MAX_DAYS. Widen only in tests of long ranges. */
  maxStartAgeDays?: number;
};

export class SimulatedBulkDownloads {
  private readonly csvByTrackId = new Map<string, string>();

  constructor(
    private readonly catalog: DianCatalog,
    private readonly options: BulkDownloadOptions = {},
  ) {}

  /** BulkDocumentDownloadAsync: validates like DIAN, prepares the CSV at once and answers its trackId. */
  request(params: { nit: string; startDate: string; endDate: string; documentGroup: string }, now: Date): DianResponseFields {
    const { nit, startDate, endDate } = params;
    if (!nit.trim()) return refused('Para realizar la solicitud de descarga masiva de documentos, el nit es obligatorio.');
    if (!/^[0-9/-]+$/.test(startDate)) return refused("El parámetro de consulta 'fecha inicial' NO cumple con el tipo de dato y/o formato.");
    if (!/^[0-9/-]+$/.test(endDate)) return refused("El parámetro de consulta 'fecha final' NO cumple con el tipo de dato y/o formato.");
    const group = params.documentGroup.trim() || 'Todos';
    if (!GROUPS.includes(group.toLowerCase())) return refused(`El grupo de documento solicitado (${group}) es inválido.`);
    const start = Date.parse(`${startDate}T00:00:00Z`);
    const end = Date.parse(`${endDate}T00:00:00Z`);
    if (Number.isNaN(start)) return refused('La fecha inicio es obligatoria.');
    if (Number.isNaN(end)) return refused('La fecha final es obligatoria.');
    if (end < start) return refused('La fecha final debe ser mayor o igual a la fecha inicial.');
    if ((end - start) / DAY_MS > SIMULATED_BULK_MAX_DAYS) {
      return refused('El rango de fechas especificado para esta solicitud, supera el rango máximo de fechas permitido (3 meses).');
    }
    const today = Date.parse(`${colombiaNow(now).date}T00:00:00Z`);
    if ((today - start) / DAY_MS > (this.options.maxStartAgeDays ?? SIMULATED_BULK_MAX_DAYS)) {
      return refused('la fecha de inicio supera el rango máximo de fechas permitido (3 meses).');
    }
    const wanted = group.toLowerCase();
    const documents = this.catalog
      .allDocuments()
      .filter((d) => d.issueDate >= startDate && d.issueDate <= endDate)
      .filter((d) => (wanted !== 'emitido' && d.receiverNit === nit) || (wanted !== 'recibido' && d.senderNit === nit))
      .sort((a, b) => a.issueDate.localeCompare(b.issueDate) || a.cufe.localeCompare(b.cufe));
    const trackId = randomUUID();
    this.csvByTrackId.set(trackId, csvOf(documents, group));
    return {
      isValid: true,
      statusCode: '00',
      statusDescription: `Solicitud de descarga masiva registrada con trackId ${trackId}.`,
      xmlDocumentKey: trackId,
    };
  }

  /** GetStatusBulkDocumentDownload: the link is `{base}/bulk-downloads/{trackId}.csv`, served by the simulator. */
  status(trackId: string, base: string): DianResponseFields & { urlDescarga?: string } {
    if (!trackId.trim()) return refused('El trackId de la solciitud es obligatorio.');
    if (!this.csvByTrackId.has(trackId)) return refused(`La solicitud ${trackId} no existe.`);
    return {
      isValid: true,
      statusCode: '00',
      statusDescription: `La solicitud ${trackId} se encuentra en estado: Finalizado, Archivo generado`,
      urlDescarga: `${base}/bulk-downloads/${encodeURIComponent(trackId)}.csv`,
    };
  }

  /** The CSV behind a link, or undefined. */
  csv(trackId: string): string | undefined {
    return this.csvByTrackId.get(trackId);
  }

  /** GetDocIdentifierWithEvents: CUFEs of the NIT's documents (issued or received) with an event on the day (yyyyMMdd). */
  docIdentifiersWithEvents(contributorCode: string, dateNumber: string, now: Date): { statusCode: string; success: boolean; message: string; csv: string | null } {
    if (!contributorCode.trim()) return { statusCode: '89', success: false, message: 'ContributorCode no enviado.', csv: null };
    const day = dateNumber.trim() || colombiaNow(now).date.replaceAll('-', '');
    const date = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
    const cufes = this.catalog
      .allDocuments()
      .filter((d) => d.receiverNit === contributorCode || d.senderNit === contributorCode)
      .filter((d) => this.catalog.events(d.cufe).some((event) => event.date === date))
      .map((d) => d.cufe);
    if (cufes.length === 0) return { statusCode: '0', success: true, message: 'No existe información con los criterios de búsqueda recibidos', csv: null };
    return { statusCode: '0', success: true, message: '', csv: ['CUFE', ...cufes].join('\r\n') + '\r\n' };
  }
}
