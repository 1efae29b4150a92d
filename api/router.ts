import Router from '@koa/router';

/**
 * Every router of the API matches paths case-sensitively (`/v1/me`, never `/V1/me`). With
 * @koa/router's default, routes matched any case while the /v1 router's own middleware
 * (authentication, rate limit, body parsing) matched only `/v1`: `/V1/me` reached its handler
 * unauthenticated. One rule for all layers closes that gap; an unknown spelling is a 404.
 */
export function createRouter(options: Omit<NonNullable<ConstructorParameters<typeof Router>[0]>, 'sensitive'> = {}): Router {
  return new Router({ ...options, sensitive: true });
}
