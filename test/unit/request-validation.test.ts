import test from 'ava';
import { parseBody, parseQuery, rejectUnknownParameters } from '../../api/validation';
import { documentFilterQuery } from '../../api/v1/documents/filters';
import { ApiError } from '../../api/errors';
import { integrationIn } from '../../api/v1/integrations/schemas';
import { dianEventIn } from '../../api/v1/dian-events/schemas';
import { endpointIn } from '../../api/v1/webhooks/schemas';
import { paymentClaimIn } from '../../api/v1/documents/payment-claims';
import { exportIn } from '../../api/v1/exports/schemas';
import { dianImportIn } from '../../api/v1/dian-imports/schemas';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const genericHttp = { name: 'erp', provider: 'generic_http', credentials: { secret: SECRET }, settings: { url: 'https://erp.example/hook' } };

function refusal(schema: Parameters<typeof parseBody>[0], body: unknown): { message: string; param?: string } {
  try {
    parseBody(schema, body);
  } catch (error) {
    if (error instanceof ApiError) return { message: error.message, param: error.param };
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

// These fields' schemas give no message of their own for a wrong type: zod's own words reached
// clients ("credentials.secret: Invalid input: expected string, received undefined.").
test('a missing field, or one of the wrong type, is said in our words and named', (t) => {
  for (const [schema, body, message, param] of [
    [integrationIn, { ...genericHttp, credentials: {} }, 'credentials.secret is required.', 'credentials.secret'],
    [integrationIn, { ...genericHttp, credentials: { secret: null } }, 'credentials.secret must be a string.', 'credentials.secret'],
    [integrationIn, { ...genericHttp, credentials: 'x' }, 'credentials must be a JSON object.', 'credentials'],
    [integrationIn, { ...genericHttp, settings: [] }, 'settings must be a JSON object.', 'settings'],
    [integrationIn, { name: 'erp', provider: 'generic_http', settings: genericHttp.settings }, 'credentials is required.', 'credentials'],
    [dianEventIn, { event: '030', issuer: 7 }, 'issuer must be a JSON object.', 'issuer'],
    [endpointIn, null, 'The request body must be a JSON object.', undefined],
    [endpointIn, ['https://example.com/hook'], 'The request body must be a JSON object.', undefined],
  ] as const) {
    const refused = refusal(schema, body);
    t.is(refused.message, message, JSON.stringify(body));
    t.is(refused.param, param, JSON.stringify(body));
    t.notRegex(refused.message, /Invalid input|received/);
  }
});

test('a message a schema gives of its own is kept as written', (t) => {
  t.deepEqual(refusal(endpointIn, { url: 5 }), { message: 'url must be a string.', param: 'url' });
  t.deepEqual(refusal(integrationIn, { ...genericHttp, provider: 'sap' }), { message: 'provider must be alegra or generic_http.', param: 'provider' });
});

// The names are the client's: a body of 80,000 unknown keys was answered with a 630 KB message,
// one key of 900 KB with a 1.8 MB answer (message and param), on npm start.
test('unknown parameters are named, quoted, at most 10 of them and 64 characters of each, whatever was sent', (t) => {
  const valid = { url: 'https://example.com/hook', events: ['webhook.test'] };
  const many: Record<string, number> = {};
  for (let index = 0; index < 80_000; index += 1) many[`k${index}`] = 1;
  const crowd = refusal(endpointIn, { ...valid, ...many });
  t.is(crowd.param, 'k0');
  t.is(crowd.message, 'Unknown parameter(s): "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9" and 79990 more.');

  const huge = refusal(endpointIn, { ...valid, ['x'.repeat(900_000)]: 1 });
  t.is(huge.param, `${'x'.repeat(64)}…`);
  t.is(huge.message, `Unknown parameter(s): "${'x'.repeat(64)}…".`);
  t.deepEqual(refusal(endpointIn, { ...valid, colour: 'red' }), { message: 'Unknown parameter(s): "colour".', param: 'colour' });

  // A query string: the same rule, with what the list takes.
  const query = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`${'q'.repeat(100)}${index}`, '1']));
  let refused: ApiError | undefined;
  try {
    rejectUnknownParameters(query, ['limit', 'cursor']);
  } catch (error) {
    refused = error as ApiError;
  }
  t.is(refused?.param, `${'q'.repeat(64)}…`);
  t.is(refused?.message, `Unknown parameter(s): ${Array.from({ length: 10 }, () => `"${'q'.repeat(64)}…"`).join(', ')} and 2 more; this route takes limit, cursor.`);
});

// A schema's own message is about a value of the wrong type; for a field left out it misled:
// POST …/webhooks with {} answered "url must be a string.", a payment claim without its number
// "number must be a string.", an import without begin_date "begin_date must be a date as YYYY-MM-DD.".
test('a required field left out is said to be required, even where the schema words its type', (t) => {
  for (const [schema, body, param] of [
    [endpointIn, {}, 'url'],
    [paymentClaimIn, {}, 'number'],
    [paymentClaimIn, { number: 'CC-1', total: '10.00', contact_id: 1 }, 'issue_date'],
    [exportIn, {}, 'integration'],
    [dianImportIn, {}, 'begin_date'],
    [dianEventIn, { event: '030', issuer: {} }, 'issuer.id_type'],
    [integrationIn, { provider: 'alegra' }, 'name'],
  ] as const) {
    t.deepEqual(refusal(schema, body), { message: `${param} is required.`, param }, JSON.stringify(body));
  }
  // A value present but wrong keeps the schema's own words.
  t.deepEqual(refusal(paymentClaimIn, { number: 7 }), { message: 'number must be a string.', param: 'number' });
  t.is(refusal(dianEventIn, { event: '030', issuer: { id_type: '99' } }).message.startsWith('issuer.id_type must be a DIAN identification type code'), true);
});

// GET …/invoices?contact_id=abc answered "contact_id: must be a positive integer id in plain decimal
// digits…": idParam's rule, worded for any field, was glued to the name with a colon.
test('a shared rule worded for any field reads after the field name, as every other message does', (t) => {
  try {
    parseQuery(documentFilterQuery, { contact_id: 'abc' });
    t.fail('accepted');
  } catch (error) {
    t.true(error instanceof ApiError);
    t.is((error as ApiError).param, 'contact_id');
    t.regex((error as ApiError).message, /^contact_id must be a positive integer id in plain decimal digits/);
  }
});
