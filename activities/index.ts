import type { Database } from '../db/connection';
import { createSystemActivities } from './system';
import { createWebhookActivities, type WebhookActivityDependencies } from './webhooks';

/** Everything activities need from the outside world, built once by the worker. */
export type ActivityDependencies = { db: Database } & WebhookActivityDependencies;

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createSystemActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
