/** The one place task-queue names are spelled; the API and the worker both import them. */
export const TASK_QUEUES = {
  main: 'document-invoicing',
} as const;
