/**
 * Alegra adapter: posts a received purchase invoice as an Alegra "factura de proveedor" (bill).
 *
 * Sources (Alegra's public API documentation, developer.alegra.com, read 2026):
 *  - Authentication, https://developer.alegra.com/docs/authenticación : HTTP Basic with
 *    base64("<account e-mail>:<API token>"); a failed authentication answers 401.
 *  - Request limit, https://developer.alegra.com/reference/límite-de-request-1 : 150 requests per
 *    minute per user; above it 429 "Too Many request"; every answer carries X-Rate-Limit-Limit,
 *    X-Rate-Limit-Remaining and X-Rate-Limit-Reset (seconds left in the current period). No
 *    Retry-After is documented, so we honour Retry-After when present and otherwise
 *    X-Rate-Limit-Reset, otherwise one full period (60 s).
 *  - Create bill, https://developer.alegra.com/reference/bills-create_bill : POST /v1/bills;
 *    date, dueDate and provider.id are required; lines go under purchases.items and/or
 *    purchases.categories (at least one); id/status/total/balance/payments are read-only; a
 *    line's `tax` is an array of { id } (Alegra tax ids, not percentages); 201 on success;
 *    error codes include 11004 provider not found, 11040 no items nor categories,
 *    11067/11059 invalid tax ids, 20007 invalid numberTemplate.id, 900/907 plan limits,
 *    11108 "UUID ya asociado a otro bill" (a duplicate).
 *  - General information, https://developer.alegra.com/docs : tax objects look like
 *    { id, name, percentage, description }, used to map our line tax percent to a tax id
 *    (GET /taxes, listed under "Configuraciones > Impuestos" on https://developer.alegra.com).
 *  - Contacts: POST/GET /contacts (https://developer.alegra.com/reference/post_contacts, as
 *    linked from Pipedream's Alegra "Create Contact" action); Colombian contacts carry
 *    identificationObject { type, number, dv } and kindOfPerson, and type ['provider'] for
 *    suppliers (shape as used by the alegra-cli guide
 *    https://jjuanrivvera.github.io/alegra-cli/guides/expenses-and-purchases/ and a public
 *    C# client's CrearClienteRequest DTO).
 *  - HTTP status meanings (400 body invalid, 401 auth, 402 plan/suspended, 403 permissions,
 *    404 not found or suspended account, 429, 500, 503 maintenance): Alegra's table as
 *    reproduced in https://jjuanrivvera.github.io/alegra-cli/reference/errors/ . Error bodies
 *    are { "message", "code" }.
 *
 * NOT confirmed by the documentation we could read (assumptions, kept in one place each):
 *  - The supplier's invoice number is sent as numberTemplate.number (the bill reference names
 *    numberTemplate; the brief called it "billNumber"). Alegra does not document rejecting a
 *    repeated supplier number, so duplicate detection is best-effort: code 11108 or a message
 *    saying the document already exists (ya existe / duplicad / already exists).
 *  - Lines are posted as purchases.categories (expense ledger account `categoryId`, which the
 *    customer chooses in settings) with { id, price, quantity, observations, tax }; per-line
 *    `observations` and the `dv` being numeric are as seen in third-party clients only.
 *  - A foreign currency is sent as currency: { code, exchangeRate } with the document's
 *    PaymentExchangeRate (COP per unit, as a JSON number) when it has one to COP, else as
 *    { code } alone; the Alegra account must have multi-currency enabled or Alegra answers 400.
 *  - Withholdings (ReteFuente, ReteIVA, ReteICA) go in the bill's `retentions` as [{ id, amount }],
 *    the id found in GET /retentions ("Configuraciones > Retenciones") by kind (its `type` or
 *    name mentioning fuente/renta, IVA or ICA) and percentage; a withholding the account has no
 *    retention for fails the export with validation_failed, like a missing tax.
 *  - Document-level charges are booked as one more category line each (untaxed, as DIAN's
 *    document-level charges are); document-level discounts and prepayments (anticipos) are named
 *    in the observations only: Alegra's line discounts would change the taxed base.
 *  - GET /contacts?identification=… may match loosely, so we keep only contacts whose
 *    identification number is exactly ours. A found contact is reused as-is even if it is
 *    only a 'client' (Alegra would then answer 11004/validation_failed).
 *  - Alegra takes no idempotency key: a timeout on POST /bills is ambiguous (the bill may
 *    exist); the retry then gets either a new bill or a duplicate error.
 */
import { withClientSpan } from '../outbound/client-span';
import { allowedUnderLoopbackOnly } from '../outbound/public-targets';
import { readCappedBody } from '../outbound/capped-body';
import { nitCheckDigit, isValidNit } from '../../domain/nit';
import { errorFromAnswer, excerpt, parseResetSeconds } from './http-errors';
import { ExportError, type AccountingIntegration, type ExportInput, type ExportResult } from './port';

export const ALEGRA_DEFAULT_BASE_URL = 'https://api.alegra.com/api/v1';
const DEFAULT_TIMEOUT_MS = 15_000;
const RATE_LIMIT_PERIOD_MS = 60_000;
/**
 * The most of one answer read into memory. Alegra's lists are paged (30 items) and a bill is a
 * few KB; a larger answer is a broken proxy or a fault, and reading it whole could exhaust the
 * worker's heap (128 MB), killing every activity the worker runs, attempt after attempt.
 */
export const ALEGRA_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Alegra codes that mean "this bill already exists". 11108 is documented (UUID already on another bill). */
export const ALEGRA_DUPLICATE_CODES: ReadonlySet<string> = new Set(['11108']);
const DUPLICATE_MESSAGE = /ya existe|duplicad|already exists/i;

export type AlegraSettings = {
  /** API root including the version, e.g. https://api.alegra.com/api/v1 (tests point it at the fake). */
  baseUrl: string;
  email: string;
  token: string;
  timeoutMs?: number;
  /** Alegra expense category (ledger account) id the purchase lines are booked to. Required to export. */
  categoryId?: string;
};

/** DIAN identification type code → Alegra Colombia identification type. */
const DIAN_TO_ALEGRA_ID_TYPE: Record<string, string> = {
  '11': 'RC',
  '12': 'TI',
  '13': 'CC',
  '21': 'TE',
  '22': 'CE',
  '31': 'NIT',
  '41': 'PP',
  '42': 'DIE',
  '47': 'PEP',
  '48': 'PPT',
  '50': 'FOREIGN_NIT',
  '91': 'NUIP',
};
const ALEGRA_ID_TYPES = new Set(Object.values(DIAN_TO_ALEGRA_ID_TYPE));

type AlegraTax = { id: string | number; name?: string; percentage?: string | number; type?: string; status?: string };
type AlegraRetention = { id: string | number; name?: string; percentage?: string | number; type?: string; status?: string };

/** The kind of withholding an Alegra retention is, from its type, else its name (ICA is checked first: "ReteICA" is not IVA). */
export function alegraRetentionKind(retention: { type?: string; name?: string }): 'rete_fuente' | 'rete_iva' | 'rete_ica' | null {
  const described = `${retention.type ?? ''} ${retention.name ?? ''}`;
  if (/\bica\b|reteica/i.test(described)) return 'rete_ica';
  if (/\biva\b|reteiva/i.test(described)) return 'rete_iva';
  if (/fuente|renta/i.test(described)) return 'rete_fuente';
  return null;
}
type AlegraContact = {
  id: string | number;
  name?: string;
  identification?: string | { number?: string } | null;
  identificationObject?: { type?: string; number?: string } | null;
};
type AlegraBill = {
  id?: string | number;
  numberTemplate?: { number?: string | number | null } | null;
  provider?: { id?: string | number; name?: string } | null;
};

export function createAlegraIntegration(settings: AlegraSettings): AccountingIntegration {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const authorization = `Basic ${Buffer.from(`${settings.email}:${settings.token}`, 'utf8').toString('base64')}`;
  /** GET /taxes and GET /retentions, read once per integration instance. */
  const settingLists = new Map<string, unknown[]>();

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    let text: string;
    try {
      if (!allowedUnderLoopbackOnly(baseUrl)) throw new Error(`${baseUrl} is not a loopback address (OUTBOUND_ALLOW_ONLY_LOOPBACK)`);
      ({ response, text } = await withClientSpan(
        { method, url: `${baseUrl}${path}`, peer: 'accounting' },
        async (traceHeaders) => {
          const answer = await fetch(`${baseUrl}${path}`, {
            method,
            headers: {
              ...traceHeaders,
              authorization,
              accept: 'application/json',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            redirect: 'manual',
            signal: AbortSignal.timeout(timeoutMs),
          });
          return { response: answer, text: await readCapped(answer, method, path) };
        },
        (answer) => ({ status: answer.response.status }),
      ));
    } catch (error) {
      if (error instanceof ExportError) throw error;
      throw networkError(error, method, path, timeoutMs);
    }
    if (response.status < 200 || response.status > 299) {
      const parsed = parseJson(text) as { message?: unknown; code?: unknown; error?: { message?: unknown; code?: unknown } } | undefined;
      const source = parsed && typeof parsed === 'object' ? (parsed.error && typeof parsed.error === 'object' ? parsed.error : parsed) : undefined;
      const message = typeof source?.message === 'string' ? source.message : excerpt(text);
      const providerCode = source?.code === undefined || source.code === null ? undefined : String(source.code);
      const duplicate =
        (response.status === 400 || response.status === 422) &&
        ((providerCode !== undefined && ALEGRA_DUPLICATE_CODES.has(providerCode)) || DUPLICATE_MESSAGE.test(message));
      const reset = parseResetSeconds(response.headers.get('x-rate-limit-reset'));
      throw errorFromAnswer(
        'Alegra',
        { status: response.status, header: (name) => response.headers.get(name), message, providerCode, duplicate },
        reset ?? RATE_LIMIT_PERIOD_MS,
      );
    }
    const parsed = parseJson(text);
    if (parsed === undefined) {
      throw new ExportError('unexpected_response', `Alegra answered ${method} ${path} with HTTP ${response.status} but no JSON: ${excerpt(text, 120)}`, {
        status: response.status,
      });
    }
    return parsed as T;
  }

  async function settingList<T>(path: '/taxes' | '/retentions'): Promise<T[]> {
    const cached = settingLists.get(path);
    if (cached) return cached as T[];
    const list = await call<unknown>('GET', path);
    if (!Array.isArray(list)) throw new ExportError('unexpected_response', `Alegra GET ${path} did not answer a list.`);
    settingLists.set(path, list);
    return list as T[];
  }

  /** The Alegra tax for a rate: of the DIAN scheme's own Alegra type when it has one (IVA, INC), else IVA, else any. */
  async function taxIdFor({ schemeId, percent }: RatedTax): Promise<string | null> {
    const wanted = Number(percent);
    if (!Number.isFinite(wanted)) throw new ExportError('validation_failed', `Line tax percent ${JSON.stringify(percent)} is not a number.`);
    const matches = (await settingList<AlegraTax>('/taxes')).filter(
      (tax) => tax.status !== 'inactive' && tax.percentage !== undefined && Math.abs(Number(tax.percentage) - wanted) < 1e-6,
    );
    const schemeType = schemeId === null ? undefined : ALEGRA_TAX_TYPE_OF_SCHEME[schemeId];
    const chosen = (schemeType && matches.find((tax) => tax.type === schemeType)) || matches.find((tax) => tax.type === 'IVA') || matches[0];
    if (chosen) return String(chosen.id);
    if (wanted === 0) return null; // 0 % (excluded/exempt) lines simply carry no tax
    throw new ExportError(
      'validation_failed',
      `The Alegra account has no active tax of ${wanted} %; create it in Alegra (Configuración > Impuestos) and export again.`,
    );
  }

  /** The Alegra retention for one withholding: same kind and percentage, active. */
  async function retentionFor(withholding: ExportInput['document']['withholdings'][number]): Promise<{ id: string; amount: number }> {
    const label = `${withholding.taxSchemeName ?? withholding.type} ${withholding.percent ?? ''}`.trim();
    const wanted = withholding.percent === null ? null : Number(withholding.percent);
    const candidates = (await settingList<AlegraRetention>('/retentions')).filter(
      (retention) =>
        retention.status !== 'inactive' &&
        alegraRetentionKind(retention) === withholding.type &&
        (wanted === null || (retention.percentage !== undefined && Math.abs(Number(retention.percentage) - wanted) < 1e-6)),
    );
    const chosen = candidates[0];
    if (!chosen) {
      throw new ExportError(
        'validation_failed',
        `The Alegra account has no active retention for the supplier's withholding ${label} %; create it in Alegra (Configuración > Retenciones) and export again.`,
      );
    }
    return { id: String(chosen.id), amount: decimal(withholding.amount, `Withholding ${label} amount`) };
  }

  async function findOrCreateProvider(
    supplier: ExportInput['supplier'],
    contactBody: ReturnType<typeof providerContactBody>,
  ): Promise<{ id: string; name: string }> {
    const idNumber = contactBody.identificationObject.number;
    const lookup = async () => {
      const found = await call<unknown>('GET', `/contacts?identification=${encodeURIComponent(idNumber)}`);
      if (!Array.isArray(found)) throw new ExportError('unexpected_response', 'Alegra GET /contacts did not answer a list.');
      const exact = (found as AlegraContact[]).find((contact) => contactNumber(contact) === idNumber);
      return exact && exact.id !== undefined && exact.id !== null ? { id: String(exact.id), name: exact.name ?? supplier.name } : null;
    };
    const existing = await lookup();
    if (existing) return existing;

    let created: AlegraContact;
    try {
      created = await call<AlegraContact>('POST', '/contacts', contactBody);
    } catch (error) {
      // Another export for the same new supplier created it a moment ago: use that one.
      if (error instanceof ExportError && error.code === 'duplicate_document') {
        const raced = await lookup();
        if (raced) return raced;
      }
      throw error;
    }
    if (!created || created.id === undefined || created.id === null) {
      throw new ExportError('unexpected_response', 'Alegra created the contact but its answer has no id.');
    }
    return { id: String(created.id), name: created.name ?? supplier.name };
  }

  return {
    provider: 'alegra',
    async exportPurchase(input: ExportInput, _options: { idempotencyKey: string }): Promise<ExportResult> {
      // Everything we can check locally fails before any request (and never retries).
      const categoryId = settings.categoryId;
      if (!categoryId) {
        throw new ExportError('validation_failed', 'Alegra needs an expense category (ledger account) id to book purchase lines; set category_id.');
      }
      const { document } = input;
      if (document.lines.length === 0) {
        throw new ExportError('validation_failed', `Document ${document.id} has no lines; Alegra needs at least one (error 11040).`);
      }
      const date = colombianDate(document.issuedAt);
      const dueDate = document.dueDate ?? date;
      const lines = document.lines.map((line, index) => ({ line, index, amounts: lineAmounts(line, index), taxes: lineTaxes(line) }));
      const contactBody = providerContactBody(input.supplier);

      const taxIds = new Map<string, string | null>();
      for (const { taxes } of lines) {
        for (const tax of taxes.rated) if (!taxIds.has(ratedTaxKey(tax))) taxIds.set(ratedTaxKey(tax), await taxIdFor(tax));
      }
      const billRetentions = [];
      for (const withholding of document.withholdings) billRetentions.push(await retentionFor(withholding));
      const provider = await findOrCreateProvider(input.supplier, contactBody);

      const categories: { id: string; price: number; quantity: number; observations: string; tax?: { id: string }[] }[] = lines.map(({ line, amounts, taxes }) => {
        const ids = [...new Set(taxes.rated.map((tax) => taxIds.get(ratedTaxKey(tax)) ?? null).filter((id): id is string => id !== null))];
        return {
          id: categoryId,
          price: amounts.price,
          quantity: amounts.quantity,
          observations: amounts.note ? `${line.description} (${amounts.note})` : line.description,
          ...(ids.length === 0 ? {} : { tax: ids.map((id) => ({ id })) }),
        };
      });
      // A tax per unit (INC bolsas…) has no rate to give Alegra: its amount is booked as a line of its own.
      for (const { index, taxes } of lines) {
        for (const tax of taxes.perUnit) {
          categories.push({
            id: categoryId,
            price: decimal(tax.amount, `Line ${index + 1} ${tax.name} amount`),
            quantity: 1,
            observations: `${tax.name} de la línea ${index + 1}`,
          });
        }
      }
      for (const charge of document.allowanceCharges.filter((entry) => entry.charge)) {
        categories.push({
          id: categoryId,
          price: decimal(charge.amount, 'Charge amount'),
          quantity: 1,
          observations: `Cargo${charge.reason ? `: ${charge.reason}` : ''}`,
        });
      }
      const discounts = document.allowanceCharges.filter((entry) => !entry.charge);
      const observations = [
        // A habilitación document is no real purchase: exported when asked (decision 0022), the accountant is told first.
        document.dianEnvironment === 'testing' ? 'DOCUMENTO DE HABILITACIÓN DIAN (ambiente de pruebas): no es una compra real' : null,
        document.cufe ? `CUFE ${document.cufe}` : null,
        `Documento ${document.number ?? `#${document.id}`} importado automáticamente`,
        ...discounts.map((entry) => `Descuento a nivel de documento ${entry.amount} ${document.currency}${entry.reason ? ` (${entry.reason})` : ''}`),
        Number(document.prepaidAmount) > 0 ? `Anticipos ${document.prepaidAmount} ${document.currency}` : null,
        document.copEquivalents ? `Tasa de cambio ${document.exchangeRate?.rate} COP/${document.currency}; total ${document.copEquivalents.total} COP` : null,
      ]
        .filter(Boolean)
        .join(' · ');
      const bill = {
        date,
        dueDate,
        provider: { id: provider.id },
        ...(document.number ? { numberTemplate: { number: document.number } } : {}),
        ...(document.currency && document.currency.toUpperCase() !== 'COP'
          ? {
              currency: {
                code: document.currency.toUpperCase(),
                ...(document.copEquivalents && document.exchangeRate ? { exchangeRate: decimal(document.exchangeRate.rate, 'Exchange rate') } : {}),
              },
            }
          : {}),
        observations,
        purchases: { categories },
        ...(billRetentions.length ? { retentions: billRetentions } : {}),
      };

      const created = await call<AlegraBill>('POST', '/bills', bill);
      if (!created || created.id === undefined || created.id === null) {
        throw new ExportError('unexpected_response', 'Alegra created the bill but its answer has no id.');
      }
      const externalNumber = created.numberTemplate?.number ?? document.number ?? created.id;
      return {
        externalId: String(created.id),
        externalNumber: String(externalNumber),
        externalName: created.provider?.name ?? provider.name,
      };
    },
  };
}

function providerContactBody(supplier: ExportInput['supplier']) {
  const idType = DIAN_TO_ALEGRA_ID_TYPE[supplier.idType] ?? (ALEGRA_ID_TYPES.has(supplier.idType) ? supplier.idType : null);
  if (idType === null) {
    throw new ExportError('validation_failed', `Supplier identification type ${JSON.stringify(supplier.idType)} has no Alegra equivalent.`);
  }
  const number = supplier.idNumber.trim();
  const identificationObject: { type: string; number: string; dv?: number } = { type: idType, number };
  if (idType === 'NIT') {
    const dv = supplier.dv?.trim() || (isValidNit(number) ? nitCheckDigit(number) : null);
    if (dv === null || !/^\d$/.test(dv)) {
      throw new ExportError('validation_failed', `Supplier NIT ${JSON.stringify(number)} has no valid check digit.`);
    }
    identificationObject.dv = Number(dv);
  }
  const legalEntity = idType === 'NIT' || idType === 'FOREIGN_NIT';
  const name = supplier.name.trim();
  return {
    name,
    identificationObject,
    kindOfPerson: legalEntity ? 'LEGAL_ENTITY' : 'PERSON_ENTITY',
    // Alegra asks natural persons for their name split in parts; we only have the full name.
    ...(legalEntity ? {} : { nameObject: splitName(name) }),
    type: ['provider'],
    ...(supplier.email ? { email: supplier.email } : {}),
  };
}

function splitName(name: string): { firstName: string; lastName: string } {
  const parts = name.split(/\s+/).filter(Boolean);
  if (parts.length < 2) return { firstName: name, lastName: name };
  const half = Math.ceil(parts.length / 2);
  return { firstName: parts.slice(0, half).join(' '), lastName: parts.slice(half).join(' ') };
}

function contactNumber(contact: AlegraContact): string | null {
  if (contact.identificationObject?.number) return String(contact.identificationObject.number).trim();
  if (typeof contact.identification === 'string') return contact.identification.trim();
  if (contact.identification && typeof contact.identification === 'object' && contact.identification.number) {
    return String(contact.identification.number).trim();
  }
  return null;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

function decimal(value: string, what: string): number {
  const trimmed = value.trim();
  if (!DECIMAL.test(trimmed)) throw new ExportError('validation_failed', `${what} ${JSON.stringify(value)} is not a decimal number.`);
  return Number(trimmed);
}

/**
 * price × quantity normally equals the line total. When it does not (a discount or a charge on
 * the line), the line is sent as one unit at the line total so the bill adds up to what the
 * supplier invoiced, with the original quantity and unit price kept in the line's note.
 */
type ExportLine = ExportInput['document']['lines'][number];
type RatedTax = { schemeId: string | null; percent: string };

/** DIAN tax schemes (Anexo Técnico 1.9, 13.2.2) whose Alegra tax type is known: a rate shared by two types goes to the right one. */
const ALEGRA_TAX_TYPE_OF_SCHEME: Record<string, string> = { '01': 'IVA', '04': 'INC' };

const ratedTaxKey = (tax: RatedTax) => `${tax.schemeId ?? ''}|${Number(tax.percent)}`;

/**
 * A line's taxes as Alegra books them: those with a rate become the line's tax ids (all of them:
 * IVA with ICUI or INC, not only the IVA, or the bill comes out short), those per unit (no rate,
 * e.g. INC bolsas) lines of their own. An input without the list has only its IVA rate.
 */
function lineTaxes(line: ExportLine): { rated: RatedTax[]; perUnit: { name: string; amount: string }[] } {
  const hasRate = (percent: string | null): percent is string => percent !== null && percent.trim() !== '';
  if (!line.taxes) return { rated: hasRate(line.taxPercent) ? [{ schemeId: null, percent: line.taxPercent }] : [], perUnit: [] };
  // A free item (muestra gratis, FreeOfChargeIndicator) has a line total of 0 but is taxed on its
  // commercial value (cac:PricingReference): Alegra's rate on a price of 0 would book no tax at
  // all, so its tax is booked as an amount, like a tax per unit.
  const free = Number(line.lineTotal) === 0;
  // Per unit: it says so (PerUnitAmount, even beside a Percent of 0.00), or it has no rate at all.
  const perUnit = (tax: NonNullable<ExportLine['taxes']>[number]) =>
    (tax.perUnitAmount ?? null) !== null || !hasRate(tax.percent) || (free && Number(tax.amount) !== 0);
  return {
    rated: line.taxes.flatMap((tax) => (!perUnit(tax) && hasRate(tax.percent) ? [{ schemeId: tax.taxSchemeId, percent: tax.percent }] : [])),
    perUnit: line.taxes
      .filter((tax) => perUnit(tax) && Number(tax.amount) !== 0)
      .map((tax) => ({ name: `Impuesto ${tax.taxSchemeName ?? tax.taxSchemeId}`, amount: tax.amount })),
  };
}

function lineAmounts(line: ExportLine, index: number): { price: number; quantity: number; note: string | null } {
  const quantity = decimal(line.quantity, `Line ${index + 1} quantity`);
  const price = decimal(line.unitPrice, `Line ${index + 1} unit price`);
  const total = decimal(line.lineTotal, `Line ${index + 1} total`);
  if (quantity > 0 && Math.abs(quantity * price - total) <= 0.005) return { price, quantity, note: null };
  return { price: total, quantity: 1, note: `${line.quantity} × ${line.unitPrice}` };
}

const COLOMBIA_OFFSET_MS = -5 * 60 * 60 * 1000; // UTC-5 all year

/** The issue date as the supplier wrote it: issuedAt is a UTC instant, Colombia is UTC-5. */
export function colombianDate(issuedAt: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(issuedAt)) return issuedAt;
  const time = Date.parse(issuedAt);
  if (Number.isNaN(time)) throw new ExportError('validation_failed', `issuedAt ${JSON.stringify(issuedAt)} is not a date.`);
  return new Date(time + COLOMBIA_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * The answer's body as text, at most ALEGRA_MAX_RESPONSE_BYTES: a 2xx beyond it is an
 * unexpected_response (nothing to use), an error answer is cut there (its first words are enough
 * for the message).
 */
async function readCapped(response: Response, method: string, path: string): Promise<string> {
  const { text, truncated } = await readCappedBody(response, ALEGRA_MAX_RESPONSE_BYTES);
  if (truncated && response.ok) {
    throw new ExportError('unexpected_response', `Alegra answered ${method} ${path} with more than ${ALEGRA_MAX_RESPONSE_BYTES} bytes.`, {
      status: response.status,
    });
  }
  return text;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function networkError(error: unknown, method: string, path: string, timeoutMs: number): ExportError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ExportError('timeout', `Alegra did not answer ${method} ${path} within ${timeoutMs} ms.`, { cause: error });
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new ExportError('unavailable', `Could not reach Alegra for ${method} ${path}: ${detail}`, { cause: error });
}
