import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { buildOpenApiDocument } from '../../api/v1/openapi/document';
import { EVENT_TYPES } from '../../domain/webhooks/event-types';
import { generateWebhookSecret, webhookHeaders } from '../../domain/webhooks/signature';

// Standard Webhooks recommends a formal specification (JSON Schema or OpenAPI) of each event
// type's payload. The OpenAPI document describes every delivery under `webhooks`: its headers
// and its body, whose `data` is the record the spec names for the type.

type Schema = { $ref?: string; type?: string; const?: unknown; required?: string[]; properties?: Record<string, Schema>; pattern?: string };
type Parameter = { in: string; name: string; required?: boolean; schema: Schema };
type Delivery = { post?: { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses?: Record<string, unknown> } };

const document = buildOpenApiDocument() as unknown as { webhooks?: Record<string, Delivery>; components: { schemas: Record<string, Schema> } };
const resolve = (schema: Schema | undefined): Schema | undefined => (schema?.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);

const DATA_OF: Record<string, string> = {
  document: 'UploadedFile',
  dian_import: 'DianImport',
  export: 'ExportRecord',
  dian_event: 'DianEventRecord',
  contact: 'Contact',
  webhook: 'WebhookTestData',
};

test('every event type has its delivery in the OpenAPI webhooks: the Standard Webhooks headers and a JSON body of id, type, created_at, company_id, data', (t) => {
  t.deepEqual(Object.keys(document.webhooks ?? {}).sort(), [...EVENT_TYPES].sort());
  for (const type of EVENT_TYPES) {
    const post = document.webhooks?.[type]?.post;
    const headers = (post?.parameters ?? []).filter((parameter) => parameter.in === 'header');
    t.deepEqual(headers.filter((header) => header.required).map((header) => header.name).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp'], type);
    t.truthy(post?.responses?.['2XX'], `${type}: any 2xx is success`);
    const body = resolve(post?.requestBody?.content?.['application/json']?.schema);
    t.deepEqual([...(body?.required ?? [])].sort(), ['company_id', 'created_at', 'data', 'id', 'type'], type);
    t.is(body?.properties?.type?.const, type, `${type}: the body's type is the event type`);
    const data = DATA_OF[type.split('.')[0]!]!;
    t.is(body?.properties?.data?.$ref, `#/components/schemas/${data}`, `${type}: data`);
    t.truthy(document.components.schemas[data], `${type}: ${data} is in the components`);
  }
});

test('the documented webhook-signature pattern is what the service sends, with one valid secret or three, and each verifies', (t) => {
  const signature = document.webhooks?.['webhook.test']?.post?.parameters?.find((parameter) => parameter.name === 'webhook-signature');
  const pattern = new RegExp(signature?.schema.pattern ?? '^$');
  const secrets = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
  const body = '{"id":"5f0c2c8e-1d2a-4c8e-9a1b-2f3d4e5f6a7b","type":"webhook.test","data":{"message":"Señal ñ"}}';
  const now = Math.floor(Date.now() / 1000);
  for (const valid of [secrets.slice(0, 1), secrets]) {
    const headers = webhookHeaders(valid, '5f0c2c8e-1d2a-4c8e-9a1b-2f3d4e5f6a7b', now, body);
    t.regex(headers['webhook-signature'], pattern);
    for (const secret of valid) t.notThrows(() => new Webhook(secret).verify(body, headers));
  }
});
