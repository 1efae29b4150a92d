import type Router from '@koa/router';
import { createRouter } from '../../router';
import { loadOpenApiDocument, servedFrom } from './document';

/**
 * GET /v1/openapi.json, naming this deployment's URL as its server: the document's fixed
 * `http://127.0.0.1:3000` (the local default, kept in docs/openapi.yaml) sent clients generated
 * from a deployed service's document to the wrong host.
 */
export function openApiRoutes(publicBaseUrl: () => string): Router {
  const router = createRouter();
  // Serialized once: 250 KB of JSON took 0.7 ms of CPU per unauthenticated request.
  let served: { url: string; json: string } | undefined;
  router.get('/openapi.json', (ctx) => {
    const url = publicBaseUrl();
    if (served?.url !== url) served = { url, json: JSON.stringify(servedFrom(loadOpenApiDocument(), url)) };
    ctx.type = 'application/json';
    ctx.body = served.json;
  });
  return router;
}
