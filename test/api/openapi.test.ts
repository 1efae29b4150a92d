import test from 'ava';
import { loadOpenApiDocument } from '../../api/v1/openapi/document';
import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Koa's `/companies/:company_id` is OpenAPI's `/companies/{company_id}`. */
function toOpenApiPath(koaPath: string): string {
  return koaPath.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
}

test('every route of the router is in docs/openapi.yaml, and every documented operation is routed', (t) => {
  const document = loadOpenApiDocument();
  const routed = new Set(api.routes.map((route) => `${route.method} ${toOpenApiPath(route.path)}`));
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if (HTTP_METHODS.includes(method)) documented.add(`${method.toUpperCase()} ${path}`);
    }
  }
  t.deepEqual([...routed].filter((entry) => !documented.has(entry)).sort(), [], 'routed but undocumented');
  t.deepEqual([...documented].filter((entry) => !routed.has(entry)).sort(), [], 'documented but not routed');
  t.true(routed.size >= 5);
});

test('GET /v1/openapi.json serves the document without authentication', async (t) => {
  const response = await fetch(`${api.url}/v1/openapi.json`);
  t.is(response.status, 200);
  const body = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
  t.is(body.openapi, '3.1.0');
  t.truthy(body.paths['/v1/companies']);
});
