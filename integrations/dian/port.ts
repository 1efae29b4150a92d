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
