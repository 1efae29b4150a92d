import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';

// Keyset pagination over thousands of documents while new ones keep arriving.
const EXISTING = 3000;
let api: TestApi;
let key: string;
let company: { id: number };
let other: { id: number };

test.before(async () => {
  api = await startTestApi();
  company = await seedCompany(api.database, 'Paginas S.A.S.', '900108281');
  other = await seedCompany(api.database, 'Otra S.A.S.', '800197268');
  key = (await seedKey(api.database, { scopes: ['documents:read'] })).key;
  const base = Date.parse('2026-01-01T00:00:00Z');
  const rows = Array.from({ length: EXISTING }, (_, i) => ({
    company_id: company.id,
    document_type: 'electronic_invoice',
    number: `P${i}`,
    // Many ties on issued_at (ten documents per second) so the id tie-break matters.
    issued_at: new Date(base + Math.floor(i / 10) * 1000),
    total: '1.00',
    currency: 'COP',
  }));
  for (let i = 0; i < rows.length; i += 1000) await api.database.db('documents').insert(rows.slice(i, i + 1000));
});
test.after.always(async () => api?.close());

async function page(path: string) {
  const response = await fetch(`${api.url}${path}`, { headers: bearer(key) });
  return { status: response.status, body: (await response.json()) as any };
}

test('a walk sees every document exactly once while new documents arrive', async (t) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let inserted = 0;
  let pages = 0;
  do {
    const result: { body: any } = await page(`/v1/companies/${company.id}/invoices?limit=97${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen.push(...result.body.data.map((d: { number: string }) => d.number));
    cursor = result.body.next_cursor;
    pages += 1;
    // Concurrent arrivals: some newer than everything, some older, some tied with the page end.
    await api.database.db('documents').insert([
      { company_id: company.id, document_type: 'electronic_invoice', number: `NEW${inserted}`, issued_at: new Date(), total: '1.00', currency: 'COP' },
      { company_id: company.id, document_type: 'electronic_invoice', number: `OLD${inserted}`, issued_at: new Date('2025-06-01T00:00:00Z'), total: '1.00', currency: 'COP' },
    ]);
    inserted += 1;
  } while (cursor);

  const original = seen.filter((number) => number.startsWith('P'));
  t.is(new Set(seen).size, seen.length, 'no document repeats');
  t.is(original.length, EXISTING, 'no document is skipped');
  t.true(pages >= Math.ceil(EXISTING / 97));
  // Documents older than the walk position that arrived during it are reached too (they sort last).
  t.true(seen.some((number) => number.startsWith('OLD')));
});

test('pages are ordered newest first with ties broken by id', async (t) => {
  const { body } = await page(`/v1/companies/${company.id}/invoices?limit=200&issued_to=2026-01-01`);
  const rows = await api.database.db('documents').whereIn('id', body.data.map((d: { id: number }) => d.id)).select('id', 'issued_at');
  const byId = new Map(rows.map((row) => [row.id, row.issued_at.getTime()]));
  for (let i = 1; i < body.data.length; i += 1) {
    const [previous, current] = [body.data[i - 1].id, body.data[i].id];
    const order = byId.get(previous)! - byId.get(current)! || previous - current;
    t.true(order > 0, `${previous} before ${current}`);
  }
});

test('cursors are bound to their company, collection and filters; tampering is refused', async (t) => {
  const first = await page(`/v1/companies/${company.id}/invoices?limit=10`);
  const cursor = encodeURIComponent(first.body.next_cursor);
  for (const path of [
    `/v1/companies/${other.id}/invoices?cursor=${cursor}`,
    `/v1/companies/${company.id}/credit-notes?cursor=${cursor}`,
    `/v1/companies/${company.id}/invoices?synced=false&cursor=${cursor}`,
    `/v1/companies/${company.id}/invoices?cursor=${cursor}x`,
    `/v1/companies/${company.id}/invoices?cursor=eyJzY29wZSI6IngifQ.AAAA`,
  ]) {
    const result = await page(path);
    t.is(result.status, 400, path);
    t.is(result.body.error.code, 'invalid_cursor', path);
  }
  t.is((await page(`/v1/companies/${company.id}/invoices?limit=10&cursor=${cursor}`)).status, 200);
});

test('limit: default 50, maximum 200, anything else is 400 invalid_parameter', async (t) => {
  t.is((await page(`/v1/companies/${company.id}/invoices`)).body.data.length, 50);
  t.is((await page(`/v1/companies/${company.id}/invoices?limit=200`)).body.data.length, 200);
  // 9999999999999999 is past 2^53: it was told "Too big: expected int to be <=9007199254740991".
  // 00001 and +1 are 1, but not spelt as plain digits: the message said only "from 1 to 200".
  for (const limit of ['0', '201', '-5', '1.5', 'many', '9999999999999999', '00001', '%2B1']) {
    const result = await page(`/v1/companies/${company.id}/invoices?limit=${limit}`);
    t.is(result.status, 400, limit);
    t.is(result.body.error.code, 'invalid_parameter');
    t.is(result.body.error.param, 'limit');
    t.is(result.body.error.message, 'limit must be an integer from 1 to 200, in plain digits (no sign, spaces or leading zeros).', limit);
  }
  const contact = await page(`/v1/companies/${company.id}/invoices?contact_id=9999999999999999`);
  t.is(contact.status, 400);
  t.is(contact.body.error.param, 'contact_id');
  t.is(contact.body.error.message, 'contact_id must be a positive integer id in plain decimal digits, without sign or leading zeros.');
});

test('a query parameter the list does not take is 400 naming it, never ignored (Stripe: unknown parameter)', async (t) => {
  for (const [path, param] of [
    // Stripe's cursor names: ignored, they served the first page again and again.
    [`/v1/companies/${company.id}/invoices?limit=10&starting_after=123`, 'starting_after'],
    [`/v1/companies/${company.id}/invoices?ending_before=123`, 'ending_before'],
    // A misspelt filter answered the unfiltered list as if it applied.
    [`/v1/companies/${company.id}/invoices?issued_form=2026-01-01`, 'issued_form'],
    [`/v1/companies/${company.id}/invoices?limit[]=1`, 'limit[]'],
    [`/v1/companies/${company.id}/files?synced=true`, 'synced'],
    // A parameter without a name is named too: its param "" was left out of the body before 2026-11-25.
    [`/v1/companies/${company.id}/invoices?=1`, ''],
  ] as const) {
    const result = await page(path);
    t.is(result.status, 400, path);
    t.is(result.body.error.code, 'invalid_parameter', path);
    t.is(result.body.error.param, param, path);
    t.true(result.body.error.message.includes(param), result.body.error.message);
  }
  // The list's own parameters, filters included, still work together.
  const filtered = await page(`/v1/companies/${company.id}/invoices?limit=5&issued_from=2025-12-31&issued_to=2026-01-01&synced=false&kind=purchase`);
  t.is(filtered.status, 200, JSON.stringify(filtered.body).slice(0, 300));
  t.true(filtered.body.has_more);
  const next = await page(`/v1/companies/${company.id}/invoices?limit=5&issued_from=2025-12-31&issued_to=2026-01-01&synced=false&kind=purchase&cursor=${encodeURIComponent(filtered.body.next_cursor)}`);
  t.is(next.status, 200, JSON.stringify(next.body).slice(0, 300));
});

test('an invoice\'s DIAN events, a list never paged, refuse limit, cursor and unknown parameters with 400 naming them', async (t) => {
  const invoice = await api.database.db('documents').where({ company_id: company.id }).first('id');
  const path = `/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`;
  // ?limit=1 answered every event, silently, before 2026-11-25.
  for (const [query, param] of [['limit=1', 'limit'], ['cursor=abc', 'cursor'], ['event=030', 'event']] as const) {
    const result = await page(`${path}?${query}`);
    t.is(result.status, 400, query);
    t.is(result.body.error.code, 'invalid_parameter', query);
    t.is(result.body.error.param, param, query);
  }
  const all = await page(path);
  t.is(all.status, 200);
  t.deepEqual(all.body.data, []);
});

test('the list query pages on the index, never with OFFSET', async (t) => {
  await api.database.db.raw('ANALYZE documents');
  const plan = await api.database.db.raw(
    `EXPLAIN SELECT * FROM documents d WHERE d.company_id = ? AND d.document_type = 'electronic_invoice'
       AND (d.issued_at, d.id) < (now(), 999999) ORDER BY d.issued_at DESC, d.id DESC LIMIT 51`,
    [company.id],
  );
  const text = plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
  t.regex(text, /Index Scan using documents_company_type_page/);
  t.notRegex(text, /Sort/);
});

test('has_warnings=true pages on the flagged documents\' own index', async (t) => {
  await api.database.db.raw('ANALYZE documents');
  const plan = await api.database.db.raw(
    `EXPLAIN SELECT * FROM documents d WHERE d.company_id = ? AND d.document_type = 'electronic_invoice' AND jsonb_array_length(d.warnings) > 0
       AND (d.issued_at, d.id) < (now(), 999999) ORDER BY d.issued_at DESC, d.id DESC LIMIT 51`,
    [company.id],
  );
  const text = plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
  t.regex(text, /Index Scan using documents_company_type_warned_page/);
  t.notRegex(text, /Sort/);
});
