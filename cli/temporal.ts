import { Client, Connection } from '@temporalio/client';
import { temporalAddressOf, type AppConfig } from '../config';
import { AdminInputError } from '../admin/create-company';
import type { TemporalTarget } from '../temporal/start-workflow';

/** Runs `use` with the deployment's Temporal (TEMPORAL_ADDRESS, or the dev server of `npm start`), then disconnects. */
export async function withTemporal<T>(config: AppConfig, use: (temporal: TemporalTarget) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: temporalAddressOf(config), connectTimeout: '5 seconds' }).catch((error: Error) => {
    throw new AdminInputError(`Temporal is not reachable at ${temporalAddressOf(config)} (is \`npm start\` running?): ${error.message}`);
  });
  try {
    return await use({ client: new Client({ connection, namespace: config.temporal.namespace }), taskQueue: config.temporal.taskQueue });
  } finally {
    await connection.close();
  }
}
