import Router from '@koa/router';
import { loadOpenApiDocument } from './document';

export function openApiRoutes(): Router {
  const router = new Router();
  const document = loadOpenApiDocument();
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
