import Koa from 'koa';
import type Router from '@koa/router';
import { createRouter } from './router';
import { prepareUploadMemory } from './middleware/upload-memory';
import type { ApiDependencies } from './app-context';
import { requestId } from './middleware/request-id';
import { httpMetrics } from './middleware/metrics';
import { traceRequests } from './middleware/trace-requests';
import { errorHandler } from './middleware/error-handler';
import { unreadRequestBodies } from './middleware/unread-body';
import { responseIdleTimeout } from './middleware/response-idle';
import { pipeliningLimit } from './middleware/pipelining-limit';
import { readDeadline } from './middleware/read-deadline';
import { optionsAndAllow } from './middleware/allowed-methods';
import { accessLog } from './middleware/access-log';
import { authenticate } from './middleware/authenticate';
import { rateLimit } from './middleware/rate-limit';
import { jsonBody } from './middleware/json-body';
import { idempotentRequests } from './middleware/idempotent-requests';
import { refuseUndeclaredQuery } from './middleware/declared-query';
import { healthRoutes } from './health';
import { openApiRoutes } from './v1/openapi/routes';
import { meRoutes } from './v1/me/routes';
import { companiesRoutes } from './v1/companies/routes';
import { webhooksRoutes } from './v1/webhooks/routes';
import { documentsRoutes } from './v1/documents/routes';
import { contactsRoutes } from './v1/contacts/routes';
import { filesRoutes } from './v1/files/routes';
import { paymentClaimRoutes } from './v1/documents/payment-claims';
import { blobRoutes } from './blobs';
import { integrationsRoutes } from './v1/integrations/routes';
import { exportsRoutes } from './v1/exports/routes';
import { dianSettingsRoutes } from './v1/dian-settings/routes';
import { dianEventsRoutes } from './v1/dian-events/routes';
import { dianImportsRoutes } from './v1/dian-imports/routes';

export type RouteEntry = { method: string; path: string };

/**
 * Middleware order: the pipelining limit → the response's idle deadline → metrics → trace span → request id → access log → errors → the read deadline → OPTIONS and Allow → routing. Authentication, rate
 * limiting, the refusal of undeclared query parameters, body parsing and idempotent POSTs sit on the /v1 router, so they run only for routes that exist
 * (an unknown path is a 404 whoever asks).
 */
export function createApp(deps: ApiDependencies): { app: Koa; routes: RouteEntry[] } {
  // Behind a proxy (TRUST_PROXY) the client address is the one that proxy appended to
  // X-Forwarded-For: one hop, so addresses a client writes into the header itself are ignored.
  const app = new Koa({ proxy: deps.config.http.trustProxy, maxIpsCount: 1 });
  app.silent = true; // errors are logged once, by errorHandler

  const publicRouter = createRouter();
  publicRouter.use(healthRoutes(deps).routes());
  publicRouter.use('/v1', openApiRoutes(deps.publicBaseUrl).routes());
  publicRouter.use(blobRoutes(deps).routes());

  prepareUploadMemory();
  const v1 = createRouter({ prefix: '/v1' });
  v1.use(authenticate(deps.repositories.apiKeys, deps.config.authFailureLimit));
  v1.use(rateLimit(deps.config.rateLimit));
  v1.use(refuseUndeclaredQuery());
  v1.use(jsonBody(deps.config.http.bodyLimitBytes, deps.config.http.bodyPace));
  v1.use(idempotentRequests({ requests: deps.repositories.idempotentRequests, secretBox: deps.secretBox, fingerprintKey: deps.requestFingerprintKey, logger: deps.logger }));
  for (const resource of [meRoutes(deps), companiesRoutes(deps), documentsRoutes(deps), paymentClaimRoutes(deps), filesRoutes(deps), contactsRoutes(deps), webhooksRoutes(deps), integrationsRoutes(deps), exportsRoutes(deps), dianSettingsRoutes(deps), dianEventsRoutes(deps), dianImportsRoutes(deps)]) {
    v1.use(resource.routes(), resource.allowedMethods());
  }

  app.use(pipeliningLimit(deps.logger));
  app.use(responseIdleTimeout(deps.config.http.timeouts.responseIdleMs));
  app.use(httpMetrics());
  app.use(traceRequests());
  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(unreadRequestBodies());
  app.use(errorHandler(deps.logger));
  app.use(readDeadline(deps.config.http.timeouts.readMs));
  app.use(optionsAndAllow());
  app.use(publicRouter.routes()).use(publicRouter.allowedMethods());
  app.use(v1.routes()).use(v1.allowedMethods());

  return { app, routes: [...routeEntries(publicRouter), ...routeEntries(v1)] };
}

function routeEntries(router: Router): RouteEntry[] {
  const entries: RouteEntry[] = [];
  for (const layer of router.stack) {
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      entries.push({ method, path: String(layer.path) });
    }
  }
  return entries;
}
