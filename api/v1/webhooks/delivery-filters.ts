import type { DeliveryFilters, DeliveryStatus } from '../../../db/repositories/webhook-deliveries';
import { EVENT_TYPES } from '../../../domain/webhooks/event-types';
import { DELIVERY_RETENTION_DAYS } from '../../../domain/webhooks/retry-schedule';
import { invalidParameter } from '../../errors';
import { singleQueryValue as single } from '../../validation';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 timestamp with its offset, no further back than the 30-day delivery history. */
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
  const filters: DeliveryFilters = {};
  const status = single(query, 'status');
  const eventType = single(query, 'event_type');
  const since = single(query, 'since');
  if (status !== undefined) {
    if (!(STATUSES as readonly string[]).includes(status)) throw invalidParameter('status', `status must be one of ${STATUSES.join(', ')}.`);
    filters.status = status as DeliveryStatus;
  }
  if (eventType !== undefined) {
    if (!(EVENT_TYPES as readonly string[]).includes(eventType)) throw invalidParameter('event_type', `event_type must be one of ${EVENT_TYPES.join(', ')}.`);
    filters.eventType = eventType;
  }
  if (since !== undefined) filters.since = parseSince(since);
  return { filters, canonical: [status ?? '', eventType ?? '', filters.since?.toISOString() ?? ''].join('|') };
}
