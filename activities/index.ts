import type { Database } from '../db/connection';
import { createSystemActivities } from './system';
import { createWebhookActivities, type WebhookActivityDependencies } from './webhooks';
import { createIngestionActivities, type IngestionActivityDependencies } from './ingestion';

/** Everything activities need from the outside world, built once by the worker. */
export type ActivityDependencies = { db: Database } & WebhookActivityDependencies & IngestionActivityDependencies;

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createSystemActivities(deps),
    ...createWebhookActivities(deps),
    ...createIngestionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
