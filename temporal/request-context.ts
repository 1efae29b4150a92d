import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request whose work is running: set by the API's request-id middleware for an HTTP request
 * and by the worker's activity interceptor for an activity (from its workflow's memo), so every
 * workflow started on its behalf carries the same request id in its memo (temporal/start-workflow.ts).
 */
export type RequestContext = { requestId: string };

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The memo key the request id is kept under on every workflow the service starts. */
export const REQUEST_ID_MEMO_KEY = 'requestId';
