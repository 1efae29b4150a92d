import { ApplicationFailure, Context } from '@temporalio/activity';
import { TemporalFailure } from '@temporalio/common';
import { isDependencyFault } from '../services/dependency-faults';

/**
 * Attempts an activity gets for a failure that is not a dependency's (a bug, something the file
 * triggers that is not one of its import error codes): as many as its retry policy allowed before
 * dependency faults were told apart (2 s doubling, about a minute in all).
 */
export const ATTEMPTS_FOR_OTHER_FAILURES = 6;

/**
 * Runs an activity whose retry policy has no attempt limit, so that a dependency that is down
 * (Postgres, the blob store, Temporal: services/dependency-faults.ts) is waited out however long
 * it stays down, attempt after attempt (at most a minute apart), and the work finishes once it is
 * back. Any other failure still ends the retries after ATTEMPTS_FOR_OTHER_FAILURES attempts, as
 * before, so a file that trips a bug does not loop for ever. `attempts`: that number, when the
 * activity's own is another (an export's 8). A failure the activity made itself (an
 * ApplicationFailure) is its own to count: it passes as it is.
 *
 * Before, every failure had 6 attempts: a MinIO (or Postgres) outage of a minute and a half ended
 * the imports running meanwhile as `import_failed`, "the file could not be processed", although
 * nothing was wrong with the files (measured: 2 of 3 files over 512 KiB after a 90 s MinIO outage).
 */
export async function retryingDependencyFaults<T>(work: () => Promise<T>, attempts = ATTEMPTS_FOR_OTHER_FAILURES): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // A cancellation, or a failure the activity made itself (final, or retryable under a count of
    // its own: an export's software failures), goes as it is.
    if (isDependencyFault(error) || error instanceof TemporalFailure || activityAttempt() < attempts) throw error;
    const failure = error instanceof Error ? error : new Error(String(error));
    throw ApplicationFailure.create({ message: failure.message, type: failure.name, nonRetryable: true, cause: failure });
  }
}

/** The running activity's attempt number (Temporal's: every attempt counts); 1 outside an activity. */
export function activityAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1; // called outside an activity (a test of the function itself)
  }
}
