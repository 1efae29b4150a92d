import type { Client } from '@temporalio/client';

/** Resolves once at least one worker polls both the workflow and the activity side of the task queue. */
export async function waitForPollers(
  client: Client,
  taskQueue: string,
  timeoutMs: number,
  abort: Promise<never>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const hasPollers = async (taskQueueType: 1 | 2) => {
    // 1 = TASK_QUEUE_TYPE_WORKFLOW, 2 = TASK_QUEUE_TYPE_ACTIVITY
    const response = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
    });
    return (response.pollers?.length ?? 0) > 0;
  };
  const poll = async () => {
    while (Date.now() < deadline) {
      if ((await hasPollers(1)) && (await hasPollers(2))) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`no worker polled task queue ${taskQueue} within ${timeoutMs / 1000} s`);
  };
  await Promise.race([poll(), abort]);
}

