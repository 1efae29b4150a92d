import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';

/** The header carrying the request id from a workflow to its activities and children. */
export const REQUEST_ID_HEADER = 'request-id';

function withRequestId(headers: Headers): Headers {
  const requestId = workflowInfo().memo?.requestId;
  if (typeof requestId !== 'string' || headers[REQUEST_ID_HEADER]) return headers;
  return { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) };
}

/**
 * Workflow interceptors (registered with the bundle, see worker/create-worker.ts): the request id
 * kept in the workflow's memo goes to every activity as a header (the worker's activity
 * interceptor puts it in the activity's logs and in the memo of the workflows it starts) and to
 * every child's memo.
 */
export const requestIdInterceptors = (): WorkflowInterceptors => ({
  outbound: [
    {
      scheduleActivity: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
      scheduleLocalActivity: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
      startChildWorkflowExecution: (input, next) => {
        const requestId = workflowInfo().memo?.requestId;
        if (typeof requestId !== 'string') return next(input);
        return next({ ...input, options: { ...input.options, memo: { requestId, ...input.options.memo } } });
      },
      getLogAttributes: (input, next) => {
        const requestId = workflowInfo().memo?.requestId;
        return next(typeof requestId === 'string' ? { ...input, requestId } : input);
      },
    },
  ],
});
