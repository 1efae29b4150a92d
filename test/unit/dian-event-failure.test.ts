import test from 'ava';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { retryingDependencyFaults } from '../../activities/dependency-retries';
import { dianEventFailureOf } from '../../workflows/dian-event';

/** How the workflow sees a send activity that failed for good with `cause`. */
const failed = (cause: Error) => new ActivityFailure('sendDianEvent', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, undefined, 'activity failed', cause);

test("DIAN's refusal keeps its StatusCode and message", (t) => {
  const refusal = ApplicationFailure.create({ type: '99', message: 'Regla: LGC03, Rechazo: …', nonRetryable: true });
  t.deepEqual(dianEventFailureOf(failed(refusal)), { code: '99', message: 'Regla: LGC03, Rechazo: …' });
});

test("a transport failure retried to the end keeps its dian_ code", (t) => {
  t.deepEqual(dianEventFailureOf(failed(ApplicationFailure.retryable('DIAN answered HTTP 503', 'dian_unavailable'))), {
    code: 'dian_unavailable',
    message: 'DIAN answered HTTP 503',
  });
});

test('the service\'s own error through every attempt (its database down) is service_unavailable, not the error\'s class name, and hides its message', (t) => {
  // A plain error thrown by an activity reaches the workflow as an ApplicationFailure typed with the error's name.
  const ownError = ApplicationFailure.create({ type: 'KnexTimeoutError', message: 'Knex: Timeout acquiring a connection. connect ECONNREFUSED 10.0.0.5:5432' });
  const failure = dianEventFailureOf(failed(ownError));
  t.is(failure.code, 'service_unavailable');
  t.notRegex(failure.message, /Knex|10\.0\.0\.5/);
});

test('a failure of the service\'s own made final at its last attempt (a bug, by the dependency wrapper) is service_unavailable too, not its class name', async (t) => {
  const final = await t.throwsAsync(retryingDependencyFaults(async () => {
    throw new TypeError("Cannot read properties of undefined (reading 'cufe')");
  }, 1));
  t.true(final instanceof ApplicationFailure && final.nonRetryable, 'made final');
  const failure = dianEventFailureOf(failed(final!));
  t.is(failure.code, 'service_unavailable');
  t.notRegex(failure.message, /TypeError|cufe/);
});

test('an attempt that timed out is dian_unavailable', (t) => {
  const timedOut = new TimeoutFailure('activity timed out', undefined, TimeoutType.HEARTBEAT);
  t.is(dianEventFailureOf(failed(timedOut)).code, 'dian_unavailable');
});
