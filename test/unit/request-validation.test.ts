import test from 'ava';
import { parseBody } from '../../api/validation';
import { ApiError } from '../../api/errors';
import { integrationIn } from '../../api/v1/integrations/schemas';
import { dianEventIn } from '../../api/v1/dian-events/schemas';
import { endpointIn } from '../../api/v1/webhooks/schemas';

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
