import { readFileSync } from 'node:fs';
import test from 'ava';
import { loadOpenApiDocument } from '../../api/v1/openapi/document';
import { OPENAPI_YAML, renderOpenApiYaml } from '../../scripts/openapi';
import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

type Operation = { operationId?: string; security?: unknown[]; requestBody?: unknown; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };

/** Koa's `/companies/:company_id` is OpenAPI's `/companies/{company_id}`. */
function toOpenApiPath(koaPath: string): string {
  return koaPath.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
}

function documentedOperations(): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(loadOpenApiDocument().paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      if (HTTP_METHODS.includes(method)) operations.set(`${method.toUpperCase()} ${path}`, operation);
    }
  }
  return operations;
}

test('every route of the router has its operation, and every operation is routed', (t) => {
  const routed = new Set(api.routes.map((route) => `${route.method} ${toOpenApiPath(route.path)}`));
  const documented = documentedOperations();
  t.deepEqual([...routed].filter((entry) => !documented.has(entry)).sort(), [], 'routed but undocumented');
  t.deepEqual([...documented.keys()].filter((entry) => !routed.has(entry)).sort(), [], 'documented but not routed');
  t.true(routed.size >= 50);
});

test('every operation has an id, a success answer and every error status of its kind, with the error body', (t) => {
  const ids = new Set<string>();
  for (const [name, operation] of documentedOperations()) {
    t.truthy(operation.operationId, name);
    t.false(ids.has(operation.operationId!), `${name}: duplicate operationId`);
    ids.add(operation.operationId!);
    const statuses = Object.keys(operation.responses ?? {});
    t.true(statuses.some((status) => /^[23]/.test(status)), `${name}: no success answer`);
    const authenticated = operation.security === undefined;
    // 400: every authenticated route refuses a query parameter its operation does not declare.
    if (authenticated) for (const status of ['400', '401', '429', '503']) t.true(statuses.includes(status), `${name} lacks ${status}`);
    if (name.includes('{') && authenticated) for (const status of ['400', '404']) t.true(statuses.includes(status), `${name} lacks ${status}`);
    // The body reader (api/middleware/json-body.ts) runs on every POST, PUT and PATCH, bodyless actions included.
    if (/^(POST|PUT|PATCH) /.test(name) && authenticated) {
      t.truthy(operation.requestBody, `${name}: no requestBody (emptyBody for an action that takes none)`);
      for (const status of ['413', '415']) t.true(statuses.includes(status), `${name} lacks ${status}`);
    }
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!/^[45]/.test(status) || name === 'GET /healthz' && status === '503') continue;
      t.is(response.content?.['application/json']?.schema?.$ref, '#/components/schemas/Error', `${name} ${status}`);
    }
  }
});

test('every link names an operation that exists and fills each of its path parameters (the stateful fuzzer follows them)', (t) => {
  const documented = documentedOperations();
  const pathParametersById = new Map([...documented].map(([name, operation]) => [operation.operationId, [...name.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1])]));
  const linked = [...documented.values()].flatMap((operation) =>
    Object.values(operation.responses ?? {}).flatMap((response) => Object.values((response as { links?: Record<string, { operationId: string; parameters?: Record<string, string> }> }).links ?? {})),
  );
  t.true(linked.length > 50);
  for (const link of linked) {
    const pathParameters = pathParametersById.get(link.operationId);
    t.truthy(pathParameters, `${link.operationId} does not exist`);
    for (const parameter of pathParameters ?? []) t.truthy(link.parameters?.[parameter], `a link to ${link.operationId} leaves ${parameter} unfilled`);
  }
  // The document lists lead to each document's operations, the deliveries list to a delivery's.
  const linkedIds = new Set(linked.map((link) => link.operationId));
  for (const operationId of ['getInvoice', 'getCreditNotePdf', 'sendDianEvent', 'exportInvoice', 'retryWebhookDelivery', 'recoverWebhookDeliveries']) t.true(linkedIds.has(operationId), operationId);
});

test('every pattern is a regex in Unicode mode and names no surrogate: validators with Rust or other Unicode engines (Schemathesis) refuse those and drop the pattern', (t) => {
  const patterns: string[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') patterns.push(value);
      else collect(value);
    }
  };
  collect(loadOpenApiDocument());
  t.true(patterns.length > 50);
  for (const pattern of patterns) {
    t.notThrows(() => new RegExp(pattern, 'u'), pattern);
    t.false(/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(pattern), `a surrogate in ${pattern.slice(0, 80)}`);
  }
});

test('docs/openapi.yaml is the generated document (npm run openapi)', (t) => {
  t.is(readFileSync(OPENAPI_YAML, 'utf8'), renderOpenApiYaml());
});

test('GET /v1/openapi.json serves the document without authentication', async (t) => {
  const response = await fetch(`${api.url}/v1/openapi.json`);
  t.is(response.status, 200);
  const body = (await response.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { pattern?: string }> } };
  t.is(body.openapi, '3.1.0');
  t.truthy(body.paths['/v1/companies']);
  // The same document, naming the URL this service is reached at as its server (a client
  // generated from it was sent to http://127.0.0.1:3000 whatever the deployment).
  const { servers, ...rest } = body as typeof body & { servers: { url: string }[] };
  t.is(servers.length, 1);
  t.is(servers[0].url, api.url);
  const { servers: localDefault, ...documented } = JSON.parse(JSON.stringify(loadOpenApiDocument())) as typeof body & { servers: { url: string }[] };
  t.deepEqual(rest, documented);
  t.is(localDefault[0].url, 'http://127.0.0.1:3000');
  // The Money pattern is a regular expression a JSON Schema validator reads as such (no double escaping).
  t.true(new RegExp(body.components.schemas.Money.pattern!).test('1250.00'));
});

test('recover documents the since it accepts: the timestamp pattern of the deliveries filter, so a schema-valid since is a parseable one', async (t) => {
  const document = loadOpenApiDocument() as unknown as { paths: Record<string, any>; components: { schemas: Record<string, any> } };
  const body = document.paths['/v1/webhooks/{webhook_id}/recover'].post.requestBody.content['application/json'].schema;
  const schema = body.$ref ? document.components.schemas[body.$ref.split('/').pop()] : body;
  const since = schema.properties.since;
  const filter = document.paths['/v1/webhooks/{webhook_id}/deliveries'].get.parameters.find((parameter: { name: string }) => parameter.name === 'since').schema;
  t.is(typeof since.pattern, 'string', 'recover since has a pattern (it had only maxLength 40: "yesterday" was schema-valid)');
  t.is(since.pattern, filter.pattern);
  t.is(since.format, 'date-time');
  const pattern = new RegExp(since.pattern);
  for (const valid of ['2026-11-20T00:00:00Z', '2026-11-20T10:15:30.123456-05:00', '2028-02-29T23:59:00+01:00']) t.true(pattern.test(valid), valid);
  // Without its seconds it is no RFC 3339 date-time (the `format`): the pattern, a subset of the format, refuses it too.
  for (const invalid of ['yesterday', '2026-11-20', '2026-11-20T00:00:00', '2026-02-30T00:00:00Z', '2026-11-20T24:00:00Z', '2028-02-29T23:59+01:00', '6444-02-29T01:58+20:30']) t.false(pattern.test(invalid), invalid);
});
