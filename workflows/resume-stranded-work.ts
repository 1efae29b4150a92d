import { proxyActivities } from '@temporalio/workflow';
import type { createSteeringActivities } from '../activities/steering';

const { resumeStrandedWork } = proxyActivities<ReturnType<typeof createSteeringActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Run by a Temporal schedule: exports, DIAN events and DIAN import runs recorded but never started
 * (the API died, or lost Temporal, between the two) get their workflow.
 */
export async function resumeStrandedWorkWorkflow(): ReturnType<typeof resumeStrandedWork> {
  return resumeStrandedWork();
}
