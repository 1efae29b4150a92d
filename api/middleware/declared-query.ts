import type { Middleware } from 'koa';
import { rejectUnknownParameters } from '../validation';
import { loadOpenApiDocument } from '../v1/openapi/document';

type Parameter = { in?: string; name?: string };

let declared: Map<string, readonly string[]> | undefined;

/** "GET /v1/companies/{company_id}" → the query parameters its operation declares (none for most). */
function declaredQueries(): Map<string, readonly string[]> {
  if (declared) return declared;
  declared = new Map();
  for (const [path, item] of Object.entries(loadOpenApiDocument().paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, { parameters?: Parameter[] }>)) {
      const names = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name ?? '');
      declared.set(`${method.toUpperCase()} ${path}`, names);
    }
  }
  return declared;
}

/**
 * 400 invalid_parameter naming a query parameter the matched operation does not declare, on every
 * /v1 route, as the lists already did (Stripe: "Received unknown parameter"); also on the two
 * lists never paged (GET /v1/companies, an invoice's DIAN events), where ?limit=1 answered them
 * all. Until 2026-11-25 the routes that are not lists ignored it: `GET …/invoices/1?expand=contact` answered 200 as if the
 * expansion applied, and `PATCH /v1/webhooks/1?enabled=false` with a body saying true changed
 * what the body said. The declared names come from the OpenAPI document, so they cannot disagree
 * with it; a route without an operation (none under /v1) is left alone.
 */
export function refuseUndeclaredQuery(): Middleware {
  return (ctx, next) => {
    if (ctx.querystring === '') return next();
    // The route's layer among those the router matched (the router's own _matchedRoute names
    // the middleware layer running, here this one's).
    const matched = (ctx as { matched?: { path: string | RegExp; methods: string[] }[] }).matched ?? [];
    const route = matched.filter((layer) => layer.methods.includes(ctx.method)).at(-1)?.path;
    if (typeof route !== 'string') return next();
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const known = declaredQueries().get(`${method} ${route.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    if (known !== undefined) rejectUnknownParameters(ctx.query, known);
    return next();
  };
}
