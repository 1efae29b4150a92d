import { TestWorkflowEnvironment } from '@temporalio/testing';
import { timeSkippingServerPath } from './database';
import { quietTemporalRuntime } from './worker';

/**
 * Temporal's Java time-skipping test server, provisioned offline by `npm test`
 * (scripts/provision/test-server.ts) and started through its wrapper script.
 */
export async function createTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: timeSkippingServerPath() } },
  });
}
