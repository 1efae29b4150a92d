import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createSystemActivities } from '../activities/system';
import type { SystemCheckResult } from './messages';

const { readDatabaseTime } = proxyActivities<ReturnType<typeof createSystemActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * Proves the whole chain works: the API reached Temporal, a worker picked the workflow up,
 * and an activity reached Postgres. Used by GET /healthz?deep=true.
 */
export async function systemCheckWorkflow(): Promise<SystemCheckResult> {
  const databaseTime = await readDatabaseTime();
  return { workflowId: workflowInfo().workflowId, databaseTime };
}
