/**
 * A loopback fake of the SUBSET of Alegra's API the adapter uses (see the sources listed at the
 * top of integrations/accounting/alegra.ts): Basic auth, GET/POST /api/v1/contacts,
 * GET /api/v1/taxes, GET /api/v1/retentions, POST /api/v1/bills with request validation, a duplicate-number rule,
 * rate limiting and injectable faults. Error bodies are { message, code } like Alegra's.
 *
 * Where Alegra's behaviour is undocumented the fake picks something explicit: a repeated
 * numberTemplate.number for the same provider is rejected with 400 and DUPLICATE_BILL_CODE.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const DUPLICATE_BILL_CODE = 'fake_duplicate_bill_number';

export type FakeContact = {
  id: string;
  name: string;
  identification: string;
  identificationObject: { type: string; number: string; dv?: number };
  kindOfPerson?: string;
  nameObject?: unknown;
  type: string[];
  email?: string;
};
export type FakeTax = { id: string; name: string; percentage: string; type: string; status: 'active' | 'inactive' };
export type FakeRetention = { id: string; name: string; percentage: string; type: string; status: 'active' | 'inactive' };
export type FakeBill = {
  id: string;
  date: string;
  dueDate: string;
  numberTemplate?: { number: string };
  currency?: { code: string; exchangeRate?: number };
  observations?: string;
  retentions?: { id: string; amount: number }[];
  provider: { id: string; name: string; identification: string };
  purchases: { categories: { id: string; price: number; quantity: number; observations?: string; tax?: { id: string }[] }[] };
  total: number;
  status: 'open';
};
export type RecordedRequest = { method: string; path: string; authorized: boolean; body: unknown };

type Fault = { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown } | { kind: 'hang' };

export type FakeAlegraOptions = {
  email?: string;
  token?: string;
  /** Requests allowed per rolling second before 429. Default 50. */
  requestsPerSecond?: number;
  categoryIds?: string[];
  taxes?: FakeTax[];
  retentions?: FakeRetention[];
};

export const FAKE_ALEGRA_EMAIL = 'contabilidad@empresa.test';
export const FAKE_ALEGRA_TOKEN = 'token-de-prueba-123';
export const FAKE_CATEGORY_ID = '5064';

const DEFAULT_TAXES: FakeTax[] = [
  { id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' },
  { id: '2', name: 'IVA 5%', percentage: '5.00', type: 'IVA', status: 'active' },
  { id: '3', name: 'INC 8%', percentage: '8.00', type: 'INC', status: 'active' },
  { id: '4', name: 'IVA 8% (antiguo)', percentage: '8.00', type: 'IVA', status: 'inactive' },
];
const DEFAULT_RETENTIONS: FakeRetention[] = [
  { id: '11', name: 'Retefuente servicios 4%', percentage: '4.00', type: 'RETEFUENTE', status: 'active' },
  { id: '12', name: 'Retefuente compras 2.5%', percentage: '2.50', type: 'RETEFUENTE', status: 'active' },
  { id: '13', name: 'ReteIVA 15%', percentage: '15.00', type: 'RETEIVA', status: 'active' },
  { id: '14', name: 'ReteICA Bogotá 9.66 x mil', percentage: '0.966', type: 'RETEICA', status: 'active' },
  { id: '15', name: 'Retefuente honorarios 11%', percentage: '11.00', type: 'RETEFUENTE', status: 'inactive' },
];
const ID_TYPES = new Set(['RC', 'TI', 'CC', 'TE', 'CE', 'NIT', 'PP', 'DIE', 'PEP', 'PPT', 'FOREIGN_NIT', 'NUIP']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function startFakeAlegra(options: FakeAlegraOptions = {}) {
  const email = options.email ?? FAKE_ALEGRA_EMAIL;
  const token = options.token ?? FAKE_ALEGRA_TOKEN;
  const limit = options.requestsPerSecond ?? 50;
  const categoryIds = new Set(options.categoryIds ?? [FAKE_CATEGORY_ID]);
  const state = {
    contacts: [] as FakeContact[],
    bills: [] as FakeBill[],
    taxes: options.taxes ?? DEFAULT_TAXES,
    retentions: options.retentions ?? DEFAULT_RETENTIONS,
    requests: [] as RecordedRequest[],
    faults: [] as Fault[],
    /** Arrival times of the requests that counted against the rate limit. */
    window: [] as number[],
    nextId: 1,
    requestsPerSecond: limit,
  };
  const expected = `Basic ${Buffer.from(`${email}:${token}`).toString('base64')}`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = Symbol.for('malformed');
      }
      const authorized = req.headers.authorization === expected;
      state.requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorized, body: typeof body === 'symbol' ? raw : body });

      const fault = state.faults.shift();
      if (fault?.kind === 'hang') return; // never answers; close() destroys the socket
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      if (fault?.kind === 'status') return send(fault.status, fault.body ?? { message: `Fake fault ${fault.status}`, code: fault.status }, fault.headers);

      // Rate limit (rolling one-second window; Alegra's real one is 150 per minute).
      const now = Date.now();
      state.window = state.window.filter((at) => now - at < 1000);
      const remaining = Math.max(0, state.requestsPerSecond - state.window.length);
      const resetSeconds = state.window.length ? Math.max(1, Math.ceil((1000 - (now - state.window[0])) / 1000)) : 1;
      const rateHeaders = {
        'x-rate-limit-limit': String(state.requestsPerSecond),
        'x-rate-limit-remaining': String(Math.max(0, remaining - 1)),
        'x-rate-limit-reset': String(resetSeconds),
      };
      if (remaining === 0) {
        return send(429, { message: 'Too Many request', code: 429 }, { ...rateHeaders, 'retry-after': String(resetSeconds) });
      }
      state.window.push(now);

      if (!authorized) return send(401, { message: 'Las credenciales de autenticación no son válidas', code: 401 }, rateHeaders);
      if (typeof body === 'symbol') return send(400, { message: 'El cuerpo de la petición no es JSON válido', code: 400 }, rateHeaders);

      const route = `${req.method} ${url.pathname}`;
      const [status, payload] = handle(route, url, body);
      send(status, payload, rateHeaders);
    });
  });

  function handle(route: string, url: URL, body: unknown): [number, unknown] {
    switch (route) {
      case 'GET /api/v1/contacts': {
        const wanted = url.searchParams.get('identification');
        // Like a search box: matches by prefix, so callers must filter exact matches themselves.
        return [200, state.contacts.filter((contact) => wanted === null || contact.identification.startsWith(wanted))];
      }
      case 'POST /api/v1/contacts':
        return createContact(body);
      case 'GET /api/v1/taxes':
        return [200, state.taxes];
      case 'GET /api/v1/retentions':
        return [200, state.retentions];
      case 'POST /api/v1/bills':
        return createBill(body);
      default:
        return [404, { message: `No existe ${route}`, code: 404 }];
    }
  }

  function invalid(message: string, code: number | string = 400): [number, unknown] {
    return [400, { message, code }];
  }

  function createContact(body: unknown): [number, unknown] {
    if (!isObject(body)) return invalid('El contacto debe ser un objeto');
    if (typeof body.name !== 'string' || body.name.trim() === '') return invalid('El nombre del contacto es obligatorio', 1001);
    const ident = body.identificationObject;
    if (!isObject(ident) || typeof ident.type !== 'string' || !ID_TYPES.has(ident.type)) {
      return invalid('El tipo de identificación no es válido', 1002);
    }
    if (typeof ident.number !== 'string' || !/^[0-9A-Za-z]{3,20}$/.test(ident.number)) return invalid('El número de identificación no es válido', 1003);
    if (ident.type === 'NIT' && (typeof ident.dv !== 'number' || !Number.isInteger(ident.dv) || ident.dv < 0 || ident.dv > 9)) {
      return invalid('El dígito de verificación es obligatorio para NIT', 1004);
    }
    if (!Array.isArray(body.type) || !body.type.every((type) => type === 'client' || type === 'provider')) {
      return invalid('El tipo de contacto debe ser una lista con client y/o provider', 1005);
    }
    if (body.kindOfPerson !== undefined && body.kindOfPerson !== 'LEGAL_ENTITY' && body.kindOfPerson !== 'PERSON_ENTITY') {
      return invalid('kindOfPerson no es válido', 1006);
    }
    if (state.contacts.some((contact) => contact.identification === ident.number)) {
      return invalid('Ya existe un contacto con esa identificación', 1007);
    }
    const contact: FakeContact = {
      id: String(state.nextId++),
      name: body.name,
      identification: ident.number,
      identificationObject: { type: ident.type, number: ident.number, ...(typeof ident.dv === 'number' ? { dv: ident.dv } : {}) },
      kindOfPerson: typeof body.kindOfPerson === 'string' ? body.kindOfPerson : undefined,
      nameObject: body.nameObject,
      type: body.type as string[],
      email: typeof body.email === 'string' ? body.email : undefined,
    };
    state.contacts.push(contact);
    return [201, contact];
  }

  function createBill(body: unknown): [number, unknown] {
    if (!isObject(body)) return invalid('La factura debe ser un objeto');
    for (const readOnly of ['id', 'status', 'total', 'totalPaid', 'balance', 'payments']) {
      if (readOnly in body) return invalid(`El campo ${readOnly} no se puede enviar`);
    }
    if (typeof body.date !== 'string' || !DATE.test(body.date)) return invalid('La fecha es obligatoria (yyyy-MM-dd)');
    if (typeof body.dueDate !== 'string' || !DATE.test(body.dueDate)) return invalid('La fecha de vencimiento es obligatoria (yyyy-MM-dd)');
    if (body.dueDate < body.date) return invalid('La fecha de vencimiento no puede ser anterior a la fecha');
    const providerId = isObject(body.provider) ? String(body.provider.id ?? '') : '';
    const provider = state.contacts.find((contact) => contact.id === providerId);
    if (!provider) return invalid('Proveedor no encontrado', 11004);
    if (!provider.type.includes('provider')) return invalid('El contacto no es un proveedor', 11004);
    let number: string | undefined;
    if (body.numberTemplate !== undefined) {
      if (!isObject(body.numberTemplate) || typeof body.numberTemplate.number !== 'string' || body.numberTemplate.number.trim() === '') {
        return invalid('numberTemplate.number debe ser texto');
      }
      number = body.numberTemplate.number;
    }
    let currency: FakeBill['currency'];
    if (body.currency !== undefined) {
      if (!isObject(body.currency) || typeof body.currency.code !== 'string' || !/^[A-Z]{3}$/.test(body.currency.code)) {
        return invalid('La moneda no es válida');
      }
      const rate = body.currency.exchangeRate;
      if (rate !== undefined && (typeof rate !== 'number' || !(rate > 0))) return invalid('La tasa de cambio no es válida');
      currency = { code: body.currency.code, ...(typeof rate === 'number' ? { exchangeRate: rate } : {}) };
    }
    const retentions: NonNullable<FakeBill['retentions']> = [];
    if (body.retentions !== undefined) {
      if (!Array.isArray(body.retentions)) return invalid('retentions debe ser un arreglo de { id, amount }');
      for (const entry of body.retentions) {
        const retention = isObject(entry) ? state.retentions.find((candidate) => candidate.id === String(entry.id)) : undefined;
        if (!retention || retention.status !== 'active') return invalid('Retención inválida');
        if (typeof entry.amount !== 'number' || !(entry.amount >= 0)) return invalid('El valor de la retención no es válido');
        retentions.push({ id: retention.id, amount: entry.amount });
      }
    }
    const purchases = body.purchases;
    const categories = isObject(purchases) && Array.isArray(purchases.categories) ? purchases.categories : [];
    const items = isObject(purchases) && Array.isArray(purchases.items) ? purchases.items : [];
    if (categories.length === 0 && items.length === 0) return invalid('Debes agregar al menos un ítem o una categoría', 11040);
    if (items.length > 0) return invalid('Este fake solo admite purchases.categories');
    let total = 0;
    const lines: FakeBill['purchases']['categories'] = [];
    for (const [index, line] of categories.entries()) {
      if (!isObject(line) || !categoryIds.has(String(line.id))) return invalid(`La categoría de la línea ${index + 1} no existe`);
      if (typeof line.price !== 'number' || !Number.isFinite(line.price) || line.price < 0) return invalid(`El precio de la línea ${index + 1} no es válido`);
      if (typeof line.quantity !== 'number' || !(line.quantity > 0)) return invalid(`La cantidad de la línea ${index + 1} no es válida`);
      let percent = 0;
      if (line.tax !== undefined) {
        if (!Array.isArray(line.tax)) return invalid('tax debe ser un arreglo de { id }', 11048);
        for (const entry of line.tax) {
          const tax = isObject(entry) ? state.taxes.find((candidate) => candidate.id === String(entry.id)) : undefined;
          if (!tax || tax.status !== 'active') return invalid('Impuesto inválido', 11067);
          percent += Number(tax.percentage);
        }
      }
      total += line.price * line.quantity * (1 + percent / 100);
      lines.push({
        id: String(line.id),
        price: line.price,
        quantity: line.quantity,
        ...(typeof line.observations === 'string' ? { observations: line.observations } : {}),
        ...(Array.isArray(line.tax) ? { tax: (line.tax as { id: unknown }[]).map((entry) => ({ id: String(entry.id) })) } : {}),
      });
    }
    if (number !== undefined && state.bills.some((bill) => bill.provider.id === provider.id && bill.numberTemplate?.number === number)) {
      return [400, { message: `Ya existe una factura de proveedor con el número ${number} para este proveedor`, code: DUPLICATE_BILL_CODE }];
    }
    const bill: FakeBill = {
      id: String(state.nextId++),
      date: body.date,
      dueDate: body.dueDate,
      ...(number !== undefined ? { numberTemplate: { number } } : {}),
      ...(currency ? { currency } : {}),
      ...(typeof body.observations === 'string' ? { observations: body.observations } : {}),
      ...(retentions.length ? { retentions } : {}),
      provider: { id: provider.id, name: provider.name, identification: provider.identification },
      purchases: { categories: lines },
      total: Math.round(total * 100) / 100,
      status: 'open',
    };
    state.bills.push(bill);
    return [201, bill];
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    /** API root, like https://api.alegra.com/api/v1. */
    url: `http://127.0.0.1:${port}/api/v1`,
    state,
    /** The next `count` requests answer `status` (503 by default) before anything else is checked. */
    failNext(count: number, status = 503, headers?: Record<string, string>, body?: unknown) {
      for (let i = 0; i < count; i += 1) state.faults.push({ kind: 'status', status, headers, body });
    },
    /** The next `count` requests never get an answer. */
    hangNext(count: number) {
      for (let i = 0; i < count; i += 1) state.faults.push({ kind: 'hang' });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** `start()` form: one fake per call. */
export const start = startFakeAlegra;
export const fakeAlegra = { start: startFakeAlegra };

export type FakeAlegra = Awaited<ReturnType<typeof startFakeAlegra>>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
