import type { DeliveryOut, EndpointOut } from './schemas';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../../../db/repositories/webhook-deliveries';
import type { WebhookEndpointRow } from '../../../db/repositories/webhook-endpoints';

export function presentEndpoint(row: WebhookEndpointRow, secret?: string): EndpointOut {
  return {
    id: row.id,
    company_id: row.company_id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    consecutive_failures: row.consecutive_failures,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(secret ? { secret } : {}),
  };
}

export function presentDelivery(row: WebhookDeliveryRow): DeliveryOut {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    resend_of: row.resend_of,
    resent_as: row.resent_as,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** GET …/deliveries/{delivery_id}: the delivery with every attempt made. */
export function presentDeliveryDetail(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  return {
    ...presentDelivery(row),
    attempt_history: attempts.map((attempt) => ({
      attempt: attempt.attempt_number,
      started_at: attempt.started_at.toISOString(),
      status_code: attempt.status_code,
      duration_ms: attempt.duration_ms,
      error: attempt.error,
    })),
  };
}
