import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { linksTo, operation, pageOf, pageQuery, pathIds } from '../openapi/common';
import { DELIVERY_PAGE, ENDPOINT_PAGE, MAX_ENDPOINTS_PER_COMPANY } from './routes';
import { z } from 'zod';
import { deliveryOut, endpointIn, endpointOut, endpointPatch, recoverIn, testEventOut } from './schemas';
import { deliveryFilterQuery } from './delivery-filters';
import { acceptedLocation } from '../openapi/response-headers';

const tags = ['Webhooks'];
const manage = '(scope webhooks:manage, admin role)';
const endpoint = pathIds('webhook_id');
/** From an endpoint in an answer to every operation on it: the stateful fuzzer follows these. */
const endpointLinks = linksTo('webhook_id', 'id', ['getWebhookEndpoint', 'updateWebhookEndpoint', 'deleteWebhookEndpoint', 'sendWebhookTest', 'rotateWebhookSecret', 'listWebhookDeliveries', 'recoverWebhookDeliveries']);
/** From a page of deliveries to the first one (the endpoint is the request's). */
const deliveryLinks = linksTo('delivery_id', 'data/0/id', ['getWebhookDelivery', 'retryWebhookDelivery'], { webhook_id: '$request.path.webhook_id' });

export const webhooksOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/webhooks': {
    post: operation({
      operationId: 'createWebhookEndpoint',
      summary: `Register a webhook endpoint ${manage}`,
      tags,
      restricted: true,
      path: pathIds('company_id'),
      body: endpointIn,
      success: { status: 201, description: 'The endpoint, with its signing secret (shown only here and at rotation).', schema: endpointOut, links: endpointLinks },
      errors: {
        400: 'invalid_parameter: a malformed field, or a url the deployment does not allow (https only and public addresses in production).',
        409: `endpoint_limit_reached (${MAX_ENDPOINTS_PER_COMPANY} endpoints per company).`,
      },
    }),
    get: operation({
      operationId: 'listWebhookEndpoints',
      summary: `The company's webhook endpoints, newest first ${manage}`,
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(ENDPOINT_PAGE),
      success: { status: 200, description: 'A page of endpoints.', schema: pageOf(endpointOut) },
    }),
  },
  '/v1/webhooks/{webhook_id}': {
    get: operation({ operationId: 'getWebhookEndpoint', summary: `One webhook endpoint ${manage}`, tags, restricted: true, path: endpoint, success: { status: 200, description: 'The endpoint.', schema: endpointOut } }),
    patch: operation({
      operationId: 'updateWebhookEndpoint',
      summary: `Change the url or events, or enable/disable an endpoint ${manage}`,
      description: 'Re-enabling resets consecutive_failures; disabling ends pending deliveries.',
      tags,
      restricted: true,
      path: endpoint,
      body: endpointPatch,
      success: { status: 200, description: 'The endpoint.', schema: endpointOut, links: endpointLinks },
      errors: { 400: 'invalid_parameter: a malformed field, or a url the deployment does not allow.' },
    }),
    delete: operation({
      operationId: 'deleteWebhookEndpoint',
      summary: `Delete an endpoint; its pending deliveries end ${manage}`,
      tags,
      restricted: true,
      path: endpoint,
      success: { status: 204, description: 'Deleted.' },
    }),
  },
  '/v1/webhooks/{webhook_id}/test': {
    post: operation({
      operationId: 'sendWebhookTest',
      summary: `Send a webhook.test event to this endpoint only ${manage}`,
      tags,
      restricted: true,
      emptyBody: true,
      path: endpoint,
      success: {
        status: 202,
        description: 'The event was queued for delivery to this endpoint.',
        schema: testEventOut,
        headers: acceptedLocation('its delivery (getWebhookDelivery)'),
        links: linksTo('delivery_id', 'delivery_id', ['getWebhookDelivery'], { webhook_id: '$request.path.webhook_id' }),
      },
      errors: { 409: 'endpoint_disabled: re-enable the endpoint first.' },
    }),
  },
  '/v1/webhooks/{webhook_id}/rotate-secret': {
    post: operation({
      operationId: 'rotateWebhookSecret',
      summary: `Rotate the signing secret; the previous one stays valid for 24 hours ${manage}`,
      tags,
      restricted: true,
      emptyBody: true,
      path: endpoint,
      success: { status: 200, description: 'The endpoint with its new secret (shown only here).', schema: endpointOut },
    }),
  },
  '/v1/webhooks/{webhook_id}/deliveries': {
    get: operation({
      operationId: 'listWebhookDeliveries',
      summary: `Deliveries to this endpoint, newest first ${manage}`,
      tags,
      restricted: true,
      path: endpoint,
      query: pageQuery(DELIVERY_PAGE).extend(deliveryFilterQuery.shape),
      success: { status: 200, description: 'A page of deliveries.', schema: pageOf(deliveryOut), links: deliveryLinks },
    }),
  },
  '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}': {
    get: operation({
      operationId: 'getWebhookDelivery',
      summary: `One delivery with every attempt made ${manage}`,
      tags,
      restricted: true,
      path: pathIds('webhook_id', 'delivery_id'),
      success: {
        status: 200,
        description: 'The delivery and its attempts.',
        schema: deliveryOut.extend({
          attempt_history: z.array(z.object({ attempt: z.int(), started_at: z.string(), status_code: z.int().nullable(), duration_ms: z.number().nullable(), error: z.string().nullable() })),
        }),
      },
    }),
  },
  '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': {
    post: operation({
      operationId: 'retryWebhookDelivery',
      summary: `Resend one failed delivery now, as a new delivery of the same event ${manage}`,
      tags,
      restricted: true,
      emptyBody: true,
      path: pathIds('webhook_id', 'delivery_id'),
      success: { status: 202, description: 'The new delivery (asking again answers the same one).', schema: deliveryOut, headers: acceptedLocation('the new delivery (getWebhookDelivery)') },
      errors: { 409: 'delivery_not_failed, or endpoint_disabled.' },
    }),
  },
  '/v1/webhooks/{webhook_id}/recover': {
    post: operation({
      operationId: 'recoverWebhookDeliveries',
      summary: `Resend every delivery that failed since a time (at most 30 days back), once each ${manage}`,
      tags,
      restricted: true,
      path: endpoint,
      body: recoverIn,
      success: { status: 202, description: 'How many deliveries are being resent.', schema: z.object({ since: z.string(), resending: z.int().min(0) }) },
      errors: { 409: 'endpoint_disabled: re-enable the endpoint first.' },
    }),
  },
};
