import type { DeliveryFilters, DeliveryStatus } from '../../../db/repositories/webhook-deliveries';
import { EVENT_TYPES } from '../../../domain/webhooks/event-types';
import { DELIVERY_RETENTION_DAYS } from '../../../domain/webhooks/retry-schedule';
import { invalidParameter } from '../../errors';
import { parseQuery } from '../../validation';
import { CALENDAR_DATE } from '../openapi/common';
import { z } from 'zod';

const STATUSES = ['pending', 'delivered', 'failed'] as const satisfies readonly DeliveryStatus[];
/**
 * The date as CALENDAR_DATE allows it (2026-11-31 is no day), a time of day that exists, with its
 * seconds, and an offset: an RFC 3339 date-time, as the document's `format` says. Seconds were
 * optional until 2026-11-25, so a schema-violating `2026-11-20T10:15Z` was accepted (fuzz review).
 */
const TIMESTAMP = new RegExp(`^(${CALENDAR_DATE.source.slice(1, -1)})T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,6})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`);

/**
 * The deliveries list's filters, as the OpenAPI document declares them: status, event_type and
 * since (deliveries created at or after that instant; within the 30-day history, checked when
 * the request is read).
 */
/**
 * An ISO 8601 timestamp with an offset (`since` of the deliveries list and of recover): the
 * pattern is in the OpenAPI document, so only the 30-day bound is left to parseSince.
 */
export const sinceTimestamp = (description: string) =>
  z
    .string({ error: 'since must be an ISO 8601 timestamp.' })
    .regex(TIMESTAMP, 'since must be an ISO 8601 timestamp with an offset, e.g. 2026-11-20T00:00:00Z.')
    .meta({ format: 'date-time', description });

export const deliveryFilterQuery = z.object({
  status: z.enum(STATUSES, { error: `status must be one of ${STATUSES.join(', ')}.` }).optional(),
  event_type: z.enum(EVENT_TYPES, { error: `event_type must be one of ${EVENT_TYPES.join(', ')}.` }).optional(),
  since: sinceTimestamp(`Deliveries created at or after this instant, within the last ${DELIVERY_RETENTION_DAYS} days (the delivery history).`).optional(),
});

/** An ISO 8601 timestamp with its offset, of a day and time that exist, no further back than the 30-day delivery history. */
export function parseSince(value: string, param = 'since', now = new Date()): Date {
  const since = new Date(value);
  if (!TIMESTAMP.test(value) || Number.isNaN(since.getTime())) {
    throw invalidParameter(param, `${param} must be an ISO 8601 timestamp with an offset, e.g. 2026-11-20T00:00:00Z.`);
  }
  if (since.getTime() < now.getTime() - DELIVERY_RETENTION_DAYS * 24 * 60 * 60_000) {
    throw invalidParameter(param, `${param} must be within the last ${DELIVERY_RETENTION_DAYS} days (the delivery history).`);
  }
  return since;
}

/**
 * The delivery history's filters: status, event_type, since (deliveries created at or after).
 * Returns the filters and a canonical string that binds cursors to them.
 */
export function readDeliveryFilters(query: Record<string, unknown>): { filters: DeliveryFilters; canonical: string } {
  const input = parseQuery(deliveryFilterQuery, query);
  const filters: DeliveryFilters = {};
  if (input.status !== undefined) filters.status = input.status;
  if (input.event_type !== undefined) filters.eventType = input.event_type;
  if (input.since !== undefined) filters.since = parseSince(input.since);
  return { filters, canonical: [input.status ?? '', input.event_type ?? '', filters.since?.toISOString() ?? ''].join('|') };
}
