import type { TestFn } from 'ava';
import { startTestApi, type TestApi } from './api';
import { startTestWorker, type TestWorker } from './worker';

export type ApiAndWorker = { api: TestApi; worker: TestWorker };

/**
 * A test file's API and real worker (on the API's task queue), started before its tests and
 * stopped after them; the fields are set once the before hook has run.
 */
export function useApiAndWorker(test: TestFn): ApiAndWorker {
  const started = {} as ApiAndWorker;
  test.before(async () => {
    started.api = await startTestApi();
    started.worker = await startTestWorker(started.api.database, started.api.config);
  });
  test.after.always(async () => {
    await started.worker?.stop();
    await started.api?.close();
  });
  return started;
}
