import type { Database } from '../db/connection';
import { createSystemActivities } from './system';

/** Everything activities need from the outside world, built once by the worker. */
export type ActivityDependencies = { db: Database };

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createSystemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
