/**
 * The retry policy of an activity that calls a party outside the service (the accounting
 * software, DIAN): 5 s, 10 s, 20 s … capped at 5 min. The activity counts that party's failures
 * worth retrying itself and makes the 8th final (activities/exports.ts, dian-events.ts,
 * dian-imports.ts), and makes a failure of its own (a bug) final from Temporal's 8th attempt on
 * (activities/dependency-retries.ts); a dependency of ours that is down (Postgres, the blob store,
 * Temporal) is waited out for up to these 30 attempts, about 2 hours, the outages a restart, a
 * failover or a freed disk mends. Until 2026-11-25/26 each policy's limit was 8 attempts, so an
 * outage of about 15 minutes ended the work. The limit bounds what the activity never sees: a
 * worker lost mid-call again and again (each retry resends under the same idempotency key, CUDE
 * or resume point).
 */
export const OUTAGE_TOLERANT_RETRY_POLICY = { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 30 } as const;
