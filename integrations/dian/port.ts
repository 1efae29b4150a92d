/**
 * Port to DIAN's web service (WcfDianCustomerServices). The application depends on this
 * interface only; `createSoapDianGateway` (soap-gateway.ts) implements it over SOAP 1.2 with
 * WS-Security, against the real service or the local simulator — which one is configuration.
 */

/** Outcome of SendEventUpdateStatus, mapped from DIAN's `DianResponse`. */
export type DianSendResult = {
  /** `IsValid` and `StatusCode` '00'. */
  accepted: boolean;
  /** DIAN's `StatusCode` ('00' processed, '99' validation errors, '89'/'66'… other rejections). */
  statusCode: string;
  /** `StatusDescription`, falling back to `StatusMessage`. */
  description: string;
  /** `ErrorMessage` list (`Regla: …, Rechazo: …` / `Notificación: …`). */
  errors: string[];
  /**
   * `XmlDocumentKey`: the CUDE of the accepted document — or, with `Regla: 90` (already
   * processed), the key of the EARLIER document with the same sender NIT, event type and number.
   */
  documentKey: string | null;
};

export type DianXmlLookup = { found: true; xml: Buffer } | { found: false; statusCode: string; message: string };

export type DianRegisteredEvent = {
  /** Event code, e.g. '030', '032', '033'. */
  code: string;
  description: string;
  /** `EffectiveDate` (YYYY-MM-DD) when DIAN gives one. */
  date: string | null;
  /** The event's CUDE (`cac:DocumentReference/cbc:UUID`), lower-cased, when DIAN gives it. */
  cude: string | null;
};

export type DianReceivedDocument = { cufe: string; documentType: string; issueDate: string };

/** BulkDocumentDownloadAsync's `documentGroup`: every document, those the NIT issued, or those it received. */
export type DianDocumentGroup = 'Todos' | 'Emitido' | 'Recibido';

/**
 * GetStatusBulkDocumentDownload: `ready` with DIAN's link to the CSV ("documentos recibidos"
 * export format), `pending` while DIAN prepares it, `refused` when DIAN answers an error.
 */
export type DianBulkDownloadStatus =
  | { state: 'ready'; url: string; description: string }
  | { state: 'pending'; description: string }
  | { state: 'refused'; statusCode: string; description: string };

/**
 * DIAN's bulk download and event-index operations. DIAN's interface declares them, but whether
 * they answer for a company's certificate cannot be checked from here: ASSUMED
 * (integrations/dian/README.md), present only when the deployment turns them on (DIAN_BULK_LISTING).
 */
export interface DianBulkListing {
  /**
   * BulkDocumentDownloadAsync(nit, startDate, endDate, documentGroup): asks DIAN to prepare the
   * CSV of a range of at most three months. Resolves to the request's trackId; a refusal (89:
   * range too long, start too old, not authorised) is `{ refused }`.
   */
  requestBulkDownload(request: { nit: string; from: string; to: string; group: DianDocumentGroup }): Promise<
    { trackId: string } | { refused: { statusCode: string; description: string } }
  >;
  /** GetStatusBulkDocumentDownload(trackId). */
  bulkDownloadStatus(trackId: string): Promise<DianBulkDownloadStatus>;
  /**
   * GetDocIdentifierWithEvents(contributorCode, dateNumber): the CUFEs of the NIT's documents
   * that had events registered on `date` (YYYY-MM-DD; sent as yyyyMMdd), lower-cased.
   */
  docIdentifiersWithEvents(nit: string, date: string): Promise<string[]>;
}

export interface DianGateway {
  /** SendEventUpdateStatus: `zip` holds exactly one signed ApplicationResponse XML. */
  sendEvent(zip: Buffer, fileName: string): Promise<DianSendResult>;
  /** GetXmlByDocumentKey: the XML DIAN holds for a CUFE/CUDE. */
  getXmlByDocumentKey(cufe: string): Promise<DianXmlLookup>;
  /** GetStatusEvent: events registered against a CUFE (empty when DIAN has none). */
  getStatusEvent(cufe: string): Promise<DianRegisteredEvent[]>;
  /**
   * NOT a DIAN operation: the technical annex's web service has no "list received documents"
   * operation. Only present when the gateway is configured against the simulator's extension
   * (`extensions.listReceivedDocuments`). Callers must feature-test it.
   */
  listReceivedDocuments?(range: {
    companyNit: string;
    from: string;
    to: string;
    documentType: string;
  }): Promise<DianReceivedDocument[]>;
  /** Only when the deployment turned on DIAN's assumed bulk listing (DianBulkListing). */
  bulkListing?: DianBulkListing;
}

export type DianErrorCode = 'unavailable' | 'timeout' | 'invalid_response' | 'rejected_security';

/**
 * A call that did not produce a DIAN answer. Rejections of the *content* (StatusCode 99…) are
 * results, not errors. `retryable` is true for transport failures, timeouts and HTTP 5xx
 * without a security fault.
 */
export class DianError extends Error {
  override readonly name = 'DianError';
  constructor(
    readonly code: DianErrorCode,
    message: string,
    readonly retryable: boolean = code === 'unavailable' || code === 'timeout',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
