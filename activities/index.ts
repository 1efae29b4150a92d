import type { Database } from '../db/connection';
import { createSystemActivities } from './system';
import { createWebhookActivities, type WebhookActivityDependencies } from './webhooks';
import { createIngestionActivities, type IngestionActivityDependencies } from './ingestion';
import { createExportActivities, type ExportActivityDependencies } from './exports';
import { createDianActivities, type DianActivityDependencies } from './dian';
import { createMailActivities } from './mail';
import { createSteeringActivities } from './steering';
import { createIdempotentRequestActivities } from './idempotent-requests';

/** Everything activities need from the outside world, built once by the worker. */
export type ActivityDependencies = { db: Database } & WebhookActivityDependencies & IngestionActivityDependencies & ExportActivityDependencies & DianActivityDependencies;

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createSystemActivities(deps),
    ...createWebhookActivities(deps),
    ...createIngestionActivities(deps),
    ...createExportActivities(deps),
    ...createDianActivities(deps),
    ...createMailActivities(deps),
    ...createSteeringActivities(deps),
    ...createIdempotentRequestActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
