import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let writer: string;
let company: { id: number };

test.before(async () => {
  api = await startTestApi();
  company = await seedCompany(api.database);
  writer = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'] })).key;
});
test.after.always(async () => api?.close());

async function create(body: unknown, key = writer) {
  const response = await fetch(`${api.url}/v1/companies/${company.id}/payment-claim-accounts`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

test('a cuenta de cobro created by hand has no file and no PDF', async (t) => {
  const created = await create({ number: 'CC-100', issue_date: '2026-11-20', due_date: '2026-12-20', total: 850000 });
  t.is(created.status, 201);
  t.like(created.body, { number: 'CC-100', total: '850000.00', sub_total: '850000.00', vat: '0.00', currency: 'COP', due_date: '2026-12-20', cufe: null, imported_file_id: null });
  t.deepEqual(created.body.files, { original: { available: false }, pdf: { status: 'none', source: null } });
  const listed = await fetch(`${api.url}/v1/companies/${company.id}/payment-claim-accounts/${created.body.id}/pdf`, { headers: bearer(writer) });
  t.is(listed.status, 404);
  t.is(((await listed.json()) as { error: { code: string } }).error.code, 'file_not_available');
});

test('validation names the offending field; documents:write is required', async (t) => {
  for (const [body, param] of [
    [{ issue_date: '2026-11-20', total: '1' }, 'number'],
    [{ number: 'x', issue_date: '20-11-2026', total: '1' }, 'issue_date'],
    [{ number: 'x', issue_date: '2026-11-20', total: '-5' }, 'total'],
    [{ number: 'x', issue_date: '2026-11-20', total: '1.234' }, 'total'],
    [{ number: 'x', issue_date: '2026-11-20', total: '1', currency: 'pesos' }, 'currency'],
    [{ number: 'x', issue_date: '2026-11-20', total: '1', colour: 'blue' }, 'colour'],
    [{ number: 'x', issue_date: '2026-02-31', total: '1' }, 'issue_date'],
    [{ number: 'x', issue_date: '2026-11-20', due_date: '2026-02-29', total: '1' }, 'due_date'],
    [{ number: 'x', issue_date: '0000-01-01', total: '1' }, 'issue_date'],
    [{ number: 'x\u0000', issue_date: '2026-11-20', total: '1' }, 'number'],
    // A lone surrogate is no character: refused, not stored as U+FFFD (nor a 500 in a jsonb column).
    [{ number: 'PC-\ud800', issue_date: '2026-11-20', total: '1' }, 'number'],
    [{ number: 'PC-\udfff-end', issue_date: '2026-11-20', total: '1' }, 'number'],
    [{ number: '   ', issue_date: '2026-11-20', total: '1' }, 'number'],
    [{ number: 'x', issue_date: '2026-11-20', total: 1.234 }, 'total'],
  ] as const) {
    const result = await create(body);
    t.is(result.status, 400, JSON.stringify(body));
    t.is(result.body.error.param, param, JSON.stringify(body));
  }
  // An id that is no positive JSON integer is told so, in words of its own: it was zod's
  // "contact_id: Invalid input: expected number, received string." (or "Too small: …>=1").
  for (const contactId of ['1', 0, -1, 1.5, 2 ** 53, null]) {
    const result = await create({ number: 'x', issue_date: '2026-11-20', total: '1', contact_id: contactId });
    t.is(result.status, 400, String(contactId));
    t.is(result.body.error.param, 'contact_id');
    t.is(result.body.error.message, 'contact_id must be a positive integer id: a JSON number from 1 to 9007199254740991.', String(contactId));
  }
  // A schema-valid request naming a contact the company does not have: 404, as for any unknown id.
  const unknownContact = await create({ number: 'x', issue_date: '2026-11-20', total: '1', contact_id: 99999 });
  t.is(unknownContact.status, 404);
  t.is(unknownContact.body.error.param, 'contact_id');
  t.is((await create({ number: 'leap', issue_date: '2028-02-29', total: '12.5' })).status, 201);
  const astral = await create({ number: 'PC-\u{1F9FE}', issue_date: '2026-11-20', total: '1' });
  t.is(astral.status, 201, 'a well-paired surrogate (one character above U+FFFF) is text');
  t.is(astral.body.number, 'PC-\u{1F9FE}');
  const reader = (await seedKey(api.database, { scopes: ['documents:read'] })).key;
  t.is((await create({ number: 'x', issue_date: '2026-11-20', total: '1' }, reader)).status, 403);
});

test('a cuenta de cobro with VAT and no sub_total: the sub_total is the total without the VAT; VAT above the total is refused', async (t) => {
  const withVat = await create({ number: 'CC-VAT-1', issue_date: '2026-11-20', total: '119000.50', vat: '19000.25' });
  t.is(withVat.status, 201);
  t.like(withVat.body, { sub_total: '100000.25', vat: '19000.25', total: '119000.50' });
  const given = await create({ number: 'CC-VAT-2', issue_date: '2026-11-20', total: '119', vat: '19', sub_total: '90' });
  t.like(given.body, { sub_total: '90.00', vat: '19.00', total: '119.00' }, 'a sub_total given is kept as given');
  const tooMuch = await create({ number: 'CC-VAT-3', issue_date: '2026-11-20', total: '10', vat: '19' });
  t.is(tooMuch.status, 400);
  t.like(tooMuch.body.error, { code: 'invalid_parameter', param: 'vat' });
});
