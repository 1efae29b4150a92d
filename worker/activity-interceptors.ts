import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { runWithRequestContext } from '../temporal/request-context';
import { REQUEST_ID_HEADER } from '../workflows/interceptors';

/**
 * The request id a workflow passes in its activities' headers (workflows/interceptors.ts): on the
 * activity's log lines, and the request context of the activity, so workflows it starts carry it.
 */
export const requestIdActivityInterceptor: ActivityInterceptorsFactory = () => {
  let requestId: string | undefined;
  return {
    inbound: {
      execute: (input, next) => {
        const header = input.headers[REQUEST_ID_HEADER];
        requestId = header ? (defaultPayloadConverter.fromPayload(header) as string) : undefined;
        return requestId ? runWithRequestContext({ requestId }, () => next(input)) : next(input);
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(requestId ? { ...input, requestId } : input),
    },
  };
};
