import { DISABLE_AFTER_CONSECUTIVE_FAILURES, MAX_ATTEMPTS } from './retry-schedule';

/** A delivery's attempt, reported to its endpoint: a success, or a failure of attempt `attempt`. */
export type AttemptOutcome = { deliveryId: number; attempt: number; succeeded: boolean };

/**
 * What the counter counts. 'deliveries' (the spec): a delivery failed when its last attempt
 * failed. 'attempts': every failed attempt — the rule of entity runs recorded before the
 * count-failed-deliveries patch, kept so they replay.
 */
export type CountingRule = 'deliveries' | 'attempts';

export type EndpointHealthState = {
  consecutiveFailures: number;
  enabled: boolean;
  /** Recently counted outcomes, so a re-sent report is not counted twice. */
  recentOutcomeKeys: string[];
};

const REMEMBERED_OUTCOMES = 500;

/**
 * The rules of automatic deactivation (spec, Automatic deactivation), free of Temporal so
 * they are unit-tested alone. Every failed delivery adds one (an intermediate failed attempt
 * changes nothing); any delivered one resets to zero; reaching the threshold disables the
 * endpoint once.
 */
export class EndpointHealth {
  private state: EndpointHealthState;

  constructor(state?: EndpointHealthState) {
    this.state = state
      ? { ...state, recentOutcomeKeys: [...state.recentOutcomeKeys] }
      : { consecutiveFailures: 0, enabled: true, recentOutcomeKeys: [] };
  }

  get consecutiveFailures(): number {
    return this.state.consecutiveFailures;
  }

  get enabled(): boolean {
    return this.state.enabled;
  }

  /** Returns 'disable' exactly when this outcome makes the endpoint cross the threshold. */
  record(outcome: AttemptOutcome, rule: CountingRule = 'deliveries'): 'disable' | 'none' {
    if (rule === 'deliveries' && !outcome.succeeded && outcome.attempt < MAX_ATTEMPTS) return 'none';
    const key = `${outcome.deliveryId}:${outcome.attempt}`;
    if (this.state.recentOutcomeKeys.includes(key)) return 'none';
    this.state.recentOutcomeKeys.push(key);
    if (this.state.recentOutcomeKeys.length > REMEMBERED_OUTCOMES) this.state.recentOutcomeKeys.shift();

    if (outcome.succeeded) {
      this.state.consecutiveFailures = 0;
      return 'none';
    }
    this.state.consecutiveFailures += 1;
    if (this.state.enabled && this.state.consecutiveFailures >= DISABLE_AFTER_CONSECUTIVE_FAILURES) {
      this.state.enabled = false;
      return 'disable';
    }
    return 'none';
  }

  /** PATCH enabled: true — the counter starts again from zero. */
  reenable(): void {
    this.state.enabled = true;
    this.state.consecutiveFailures = 0;
  }

  snapshot(): EndpointHealthState {
    return { ...this.state, recentOutcomeKeys: [...this.state.recentOutcomeKeys] };
  }
}
