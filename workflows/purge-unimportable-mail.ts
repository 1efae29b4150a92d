import { proxyActivities } from '@temporalio/workflow';
import type { createMailActivities } from '../activities/mail';

const { purgeUnimportableMail } = proxyActivities<ReturnType<typeof createMailActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by a Temporal schedule: e-mailed messages nothing was imported from go after 30 days. */
export async function purgeUnimportableMailWorkflow(): Promise<{ messages: number }> {
  return purgeUnimportableMail();
}
