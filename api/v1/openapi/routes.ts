import type Router from '@koa/router';
import { createRouter } from '../../router';
import { loadOpenApiDocument } from './document';

export function openApiRoutes(): Router {
  const router = createRouter();
  const document = loadOpenApiDocument();
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
