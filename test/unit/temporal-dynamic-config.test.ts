import test from 'ava';
import { parse, stringify } from 'yaml';
import { CLUSTER_DYNAMIC_CONFIG, dynamicConfigDocument, dynamicConfigFlags, SHARED_DYNAMIC_CONFIG } from '../../scripts/embedded/temporal-dynamic-config';

test('the dev server gets each value as a --dynamic-config-value KEY=JSON flag (strings quoted, as the CLI requires)', (t) => {
  t.deepEqual(dynamicConfigFlags({ 'system.enableActivityEagerExecution': true, 'history.transferProcessorMaxPollRPS': 1000, 'frontend.namespace': 'default' }), [
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    '--dynamic-config-value', 'history.transferProcessorMaxPollRPS=1000',
    '--dynamic-config-value', 'frontend.namespace="default"',
  ]);
});

test("the cluster's file lists every value once, unconstrained, in the server's YAML shape", (t) => {
  const document: unknown = parse(stringify(dynamicConfigDocument(CLUSTER_DYNAMIC_CONFIG)));
  t.deepEqual(document, {
    'system.enableActivityEagerExecution': [{ value: true, constraints: {} }],
    'history.transferProcessorMaxPollRPS': [{ value: 1000, constraints: {} }],
    'limit.maxIDLength': [{ value: 255, constraints: {} }],
  });
  for (const key of Object.keys(SHARED_DYNAMIC_CONFIG)) t.true(key in CLUSTER_DYNAMIC_CONFIG, `the cluster lacks ${key}`);
});
