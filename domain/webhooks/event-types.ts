/** The event types of the spec (Events › Event types). New types are appended, never renamed. */
export const EVENT_TYPES = [
  'document.imported',
  'document.import_failed',
  'dian_import.completed',
  'dian_import.failed',
  'export.succeeded',
  'export.failed',
  'dian_event.completed',
  'dian_event.failed',
  'contact.created',
  'contact.updated',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** An empty subscription means every event type, including ones added later. */
export function isSubscribed(subscription: readonly string[], type: string): boolean {
  return subscription.length === 0 || subscription.includes(type);
}
