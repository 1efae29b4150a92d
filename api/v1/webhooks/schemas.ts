import { z } from 'zod';
import { EVENT_TYPES } from '../../../domain/webhooks/event-types';

const url = z.string({ error: 'url must be a string.' }).min(1, 'url is required.').max(2048, 'url must be at most 2048 characters.');

const events = z
  .array(z.string({ error: 'events must be a list of event type names.' }), { error: 'events must be a list of event type names.' })
  .max(EVENT_TYPES.length * 2, 'events lists too many types.')
  .superRefine((list, ctx) => {
    const unknown = list.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `Unknown event type(s): ${unknown.join(', ')}. Known: ${EVENT_TYPES.join(', ')}.` });
    }
  })
  .transform((list) => [...new Set(list)]);

/** POST /v1/companies/{company_id}/webhooks. An empty events list subscribes to every type, present and future. */
export const endpointIn = z.strictObject({ url, events: events.default([]) });

/** PATCH /v1/webhooks/{webhook_id}: any of enabled, url, events. */
export const endpointPatch = z
  .strictObject({ enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(), url: url.optional(), events: events.optional() })
  .refine((patch) => Object.keys(patch).length > 0, 'Send at least one of enabled, url, events.');

/** POST /v1/webhooks/{webhook_id}/recover: resend the deliveries that failed since this time. */
export const recoverIn = z.strictObject({
  since: z.string({ error: 'since must be an ISO 8601 timestamp.' }).min(1, 'since is required.').max(40, 'since must be an ISO 8601 timestamp.'),
});
