/**
 * The port every accounting integration implements: post one received purchase document
 * (with its supplier) to the customer's accounting software and say where it landed.
 *
 * Amounts are the literal decimal text we store (never floats); each adapter converts them
 * to whatever its API wants.
 */
export type ExportInput = {
  document: {
    id: number;
    number: string | null;
    cufe: string | null;
    /** ISO 8601 instant. */
    issuedAt: string;
    /** YYYY-MM-DD, or null. */
    dueDate: string | null;
    currency: string;
    subTotal: string;
    vat: string;
    total: string;
    /** Every document-level tax subtotal (IVA, INC, ICA, IC, ICUI, INC bolsas …) as the supplier declared it; vat is the IVA among them. */
    taxes: { taxSchemeId: string; taxSchemeName: string | null; percent: string | null; taxableAmount: string; amount: string }[];
    /** Their sum; null for a document imported before they were read (invoicing documents reclassify). */
    taxTotal: string | null;
    lines: {
      description: string;
      quantity: string;
      unitPrice: string;
      lineTotal: string;
      /** The line's IVA rate (else its first tax with a rate); null without one. */
      taxPercent: string | null;
      /**
       * Every tax of the line (IVA, INC, ICUI, INC bolsas …): a tax per unit has perUnitAmount (and
       * usually no percent), its amount is then the whole; absent from inputs built before it was passed.
       */
      taxes?: { taxSchemeId: string; taxSchemeName: string | null; percent: string | null; amount: string; perUnitAmount?: string | null }[];
      /**
       * A free item (muestra gratis: line total 0, its taxes on referencePrice, the commercial value
       * DIAN requires for it); absent from inputs built before it was passed.
       */
      freeOfCharge?: boolean;
      referencePrice?: string | null;
    }[];
    /** DIAN's type (electronic_invoice, support_document, pos_equivalent, …) and code scheme (CUFE/CUDE/CUDS); null for a bare PDF. */
    documentType: string | null;
    codeScheme: string | null;
    /**
     * The DIAN environment that validated it: 'testing' is habilitación's test set, not a real
     * purchase (the adapter may refuse or mark it); null when the XML does not say or was not read.
     */
    dianEnvironment: 'production' | 'testing' | null;
    /** Withholdings the supplier declared (ReteFuente, ReteIVA, ReteICA), amounts in the document currency, amountCop for a foreign currency. */
    withholdings: {
      type: 'rete_fuente' | 'rete_iva' | 'rete_ica' | 'other';
      taxSchemeId: string;
      taxSchemeName: string | null;
      percent: string | null;
      taxableAmount: string;
      amount: string;
      amountCop: string | null;
    }[];
    withholdingTotal: string;
    /** Document-level discounts (charge false) and charges (charge true); line-level ones are in the line totals. */
    allowanceCharges: { charge: boolean; reasonCode: string | null; reason: string | null; percent: string | null; amount: string; baseAmount: string | null }[];
    /** Prepayments (anticipos) already deducted from total. */
    prepaidAmount: string;
    /** PayableRoundingAmount, already added to total. */
    payableRounding: string;
    /** The tributos' own rounding (TaxTotal/RoundingAmount) as written; not part of taxTotal. */
    taxRounding: string;
    /** The document's PaymentExchangeRate, the rate as written. */
    exchangeRate: { sourceCurrency: string; targetCurrency: string; rate: string; date: string | null } | null;
    /** COP equivalents (amount × rate, half-up to 2 places) of a foreign-currency document; null for COP or without a rate to COP. */
    copEquivalents: { subTotal: string; vat: string; taxTotal: string | null; total: string; withholdingTotal: string } | null;
  };
  /** idType is the DIAN identification type code ('31' = NIT, '13' = C.C., ...). */
  supplier: { idType: string; idNumber: string; dv: string | null; name: string; email: string | null };
};

export type ExportResult = { externalId: string; externalNumber: string; externalName: string | null };

export type ExportErrorCode =
  | 'invalid_credentials'
  | 'validation_failed'
  | 'duplicate_document'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'unexpected_response';

/** Whether repeating the same export later can succeed without anyone changing anything. */
export const RETRYABLE_CODES: ReadonlySet<ExportErrorCode> = new Set<ExportErrorCode>(['rate_limited', 'unavailable', 'timeout']);

export class ExportError extends Error {
  readonly code: ExportErrorCode;
  readonly retryable: boolean;
  /** Only for rate_limited / unavailable when the server said how long to wait. */
  readonly retryAfterMs?: number;
  /** HTTP status of the answer that caused the error, when there was one. */
  readonly status?: number;
  /** The provider's own error code (e.g. Alegra's numeric `code`), when it gave one. */
  readonly providerCode?: string;

  constructor(
    code: ExportErrorCode,
    message: string,
    details: { retryAfterMs?: number; status?: number; providerCode?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ExportError';
    this.code = code;
    this.retryable = RETRYABLE_CODES.has(code);
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.status !== undefined) this.status = details.status;
    if (details.providerCode !== undefined) this.providerCode = details.providerCode;
  }
}

export interface AccountingIntegration {
  readonly provider: string;
  /**
   * Posts the purchase. `idempotencyKey` is stable across retries of the same export; adapters
   * whose API supports it pass it on so a retry after an ambiguous failure (timeout) does not
   * create a second document.
   */
  exportPurchase(input: ExportInput, options: { idempotencyKey: string }): Promise<ExportResult>;
}
