import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createSystemActivities } from '../../../activities/system';

const { readDatabaseTime } = proxyActivities<ReturnType<typeof createSystemActivities>>({
  startToCloseTimeout: '10 seconds',
});

/** Test-only: a durable timer far longer than a test may take, then a real activity. */
export async function delayedCheckWorkflow(delay: string): Promise<string> {
  await sleep(delay);
  return readDatabaseTime();
}
