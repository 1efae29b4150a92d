/**
 * Dynamic config that both local engines run with: the dev server of `npm start`, `npm test`
 * and the benchmarks (as `--dynamic-config-value` flags), and the Temporal cluster of
 * `npm run start:cluster` and the scale test (in its dynamic-config.yaml, CLUSTER_DYNAMIC_CONFIG),
 * which docker-compose.yml's Temporal server mounts too (deploy/temporal/dynamic-config.yaml).
 *
 * Eager activity execution: when a workflow task schedules an activity the completing worker
 * can run, the server hands the activity back with the task's completion instead of through
 * another poll (a round trip less per activity; the SDK asks for it by default, the server has
 * it off).
 *
 * The history service reads a shard's transfer queue (which hands new workflow tasks to
 * matching) at most `history.transferProcessorMaxPollRPS` times a second, 20 by default. Once a
 * burst had used those up, every workflow task that followed another at once waited ~40 ms to
 * be dispatched (on the dev server's one shard: a lone no-op workflow after a burst 94 ms from
 * start to close instead of 17). Measured in docs/performance.md, "The transfer queue's poll
 * rate" (dev server) and "Cluster" (4 shards).
 */
export const SHARED_DYNAMIC_CONFIG = {
  'system.enableActivityEagerExecution': true,
  'history.transferProcessorMaxPollRPS': 1000,
} as const satisfies Record<string, boolean | number>;

/**
 * The Temporal cluster's dynamic config (scripts/embedded/temporal-cluster.ts and
 * docker-compose.yml's deploy/temporal/dynamic-config.yaml): the shared settings, and workflow
 * ids up to 255 characters (the default, 1000, is fine for this service's ids, which embed
 * tenant and document ids; 255 matches the visibility columns).
 */
export const CLUSTER_DYNAMIC_CONFIG = {
  ...SHARED_DYNAMIC_CONFIG,
  'limit.maxIDLength': 255,
} as const satisfies Record<string, boolean | number>;

export type DynamicConfigValues = Record<string, boolean | number | string>;

/** The values as the CLI's `--dynamic-config-value key=value` flags. */
export function dynamicConfigFlags(values: DynamicConfigValues): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}

/** The values as a server's dynamic-config.yaml document (every value unconstrained). */
export function dynamicConfigDocument(values: DynamicConfigValues): Record<string, { value: boolean | number | string; constraints: Record<string, never> }[]> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, [{ value, constraints: {} }]]));
}
