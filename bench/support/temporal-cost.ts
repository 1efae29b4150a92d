import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { fixed, markdownTable } from './report';
import { runBounded } from './stats';

/**
 * What the Temporal engine did for a piece of work, read from the workflow histories: the
 * server round trips (workflow and activity tasks), what the histories grew by, and Temporal
 * Cloud's billing unit, the Action. Divided by the number of units (deliveries, events,
 * files…) it gives the per-unit cost the benchmarks print and docs/scaling.md builds on.
 *
 * Action rule (https://docs.temporal.io/cloud/actions, "Temporal Cloud Actions"), as far as a
 * history shows it:
 * - a workflow started (client start, signal-with-start's start, continue-as-new, child) is 1;
 * - an activity is 1 when it is started and 1 more per retry: scheduled activities plus, on
 *   each ActivityTaskStarted, its attempt − 1 (the server writes only the last attempt);
 * - local activities: all the local activities recorded by one workflow task are 1 together
 *   (their markers share the WorkflowTaskCompleted event id);
 * - a timer started is 1;
 * - a signal is 1, counted once: at the receiver when a client sent it (signal, or the signal
 *   half of signal-with-start: WorkflowExecutionSignaled without an external sender), at the
 *   sender when a workflow sent it (SignalExternalWorkflowExecutionInitiated);
 * - an accepted update and a search-attribute upsert are 1 each.
 * - an activity heartbeat the server records is 1: heartbeats are in no history, so they are
 *   counted from the server's own metrics (heartbeatRequests) when the benchmark passes them.
 * Not visible in histories and so not counted: queries, a local-activity workflow task's own
 * heartbeats, and the history-export and storage charges. Patch markers (`patched()`) are not
 * Actions.
 */
export type TemporalCost = {
  /** Workflow executions (runs) with at least one event in the window. */
  executions: number;
  workflowsStarted: number;
  /** Workflow tasks handed to a worker (WorkflowTaskStarted), each a poll and a completion round trip. */
  workflowTasks: number;
  /** Of which failed or timed out (replayed again by the worker). */
  workflowTaskFailures: number;
  /** Activity attempts handed to a worker, retries included. */
  activityTasks: number;
  /** Local activities recorded (MarkerRecorded `core_local_activity`): no server round trip of their own. */
  localActivities: number;
  signalsSent: number;
  signalsReceived: number;
  timers: number;
  historyEvents: number;
  /** RecordActivityTaskHeartbeat requests the server answered in the window (0 when not measured). */
  heartbeats: number;
  actions: number;
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** An event's time in ms; decoded histories carry Long seconds, hand-built ones may carry numbers. */
function eventTimeMs(event: HistoryEvent): number {
  const seconds = event.eventTime?.seconds ?? 0;
  return (typeof seconds === 'number' ? seconds : seconds.toNumber()) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
}
const EventType = temporal.api.enums.v1.EventType;

/** The marker name the TypeScript SDK's core records for a local activity's result. */
export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export const emptyCost = (): TemporalCost => ({
  executions: 0,
  workflowsStarted: 0,
  workflowTasks: 0,
  workflowTaskFailures: 0,
  activityTasks: 0,
  localActivities: 0,
  signalsSent: 0,
  signalsReceived: 0,
  timers: 0,
  historyEvents: 0,
  heartbeats: 0,
  actions: 0,
});

export type TimeWindow = { from: Date; to: Date };

/** The activity type of each local activity a history records, in order (from its marker's data). */
export function localActivityTypes(events: readonly HistoryEvent[]): string[] {
  const types: string[] = [];
  for (const event of events) {
    const marker = event.markerRecordedEventAttributes;
    if (event.eventType !== EventType.EVENT_TYPE_MARKER_RECORDED || marker?.markerName !== LOCAL_ACTIVITY_MARKER) continue;
    const data = marker.details?.data?.payloads?.[0]?.data;
    const parsed = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; activityType?: string }) : {};
    types.push(parsed.activity_type ?? parsed.activityType ?? 'unknown');
  }
  return types;
}

/** The cost recorded in one run's history, counting only the events inside `window` when one is given. */
export function costOfHistory(events: readonly HistoryEvent[], window?: TimeWindow): TemporalCost {
  const cost = emptyCost();
  const inWindow = (event: HistoryEvent) => {
    if (!window) return true;
    const at = eventTimeMs(event);
    return at >= window.from.getTime() && at <= window.to.getTime();
  };
  const localActivityTasks = new Set<string>();
  for (const event of events) {
    if (!inWindow(event)) continue;
    cost.historyEvents += 1;
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        cost.workflowsStarted += 1;
        cost.actions += 1;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        cost.workflowTasks += 1;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
        cost.workflowTaskFailures += 1;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        cost.actions += 1;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const attempts = Math.max(1, event.activityTaskStartedEventAttributes?.attempt ?? 1);
        cost.activityTasks += attempts;
        cost.actions += attempts - 1;
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const marker = event.markerRecordedEventAttributes;
        if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) break;
        cost.localActivities += 1;
        localActivityTasks.add(String(marker.workflowTaskCompletedEventId ?? event.eventId));
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        cost.timers += 1;
        cost.actions += 1;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        cost.signalsReceived += 1;
        if (!event.workflowExecutionSignaledEventAttributes?.externalWorkflowExecution?.workflowId) cost.actions += 1;
        break;
      case EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
        cost.signalsSent += 1;
        cost.actions += 1;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        cost.actions += 1;
        break;
      default:
        break;
    }
  }
  cost.actions += localActivityTasks.size;
  cost.executions = cost.historyEvents > 0 ? 1 : 0;
  return cost;
}

export function addCosts(a: TemporalCost, b: TemporalCost): TemporalCost {
  const sum = emptyCost();
  for (const key of Object.keys(sum) as (keyof TemporalCost)[]) sum[key] = a[key] + b[key];
  return sum;
}

/** One selection of executions: everything on a task queue whose life overlaps the window, optionally narrowed by a visibility query. */
export type CostSelection = {
  taskQueue: string;
  window: TimeWindow;
  /** Extra visibility clause ANDed to the task-queue one, e.g. `WorkflowType = 'x'` or a search attribute. */
  where?: string;
  /** Histories fetched at once (default 8). */
  concurrency?: number;
  /**
   * Heartbeat requests in the window (two heartbeatRequests readings apart), added to the total
   * and its actions: required, because histories cannot show them.
   */
  heartbeats: number;
};

export type MeasuredCost = { total: TemporalCost; byWorkflowType: Map<string, TemporalCost> };

/**
 * Fetches the histories of the selected executions and sums what happened inside the window, so a
 * long-lived entity workflow (e.g. a webhook endpoint's) contributes exactly its events of the
 * window. Closed runs that ended before it and runs that started after it are skipped unread.
 */
export async function measureTemporalCost(client: Client, selection: CostSelection): Promise<MeasuredCost> {
  const { window } = selection;
  const query = [`TaskQueue = '${selection.taskQueue}'`, selection.where ? `(${selection.where})` : null].filter(Boolean).join(' AND ');
  const runs: { workflowId: string; runId: string; type: string }[] = [];
  for await (const execution of client.workflow.list({ query })) {
    if (execution.startTime.getTime() > window.to.getTime()) continue;
    if (execution.closeTime && execution.closeTime.getTime() < window.from.getTime()) continue;
    runs.push({ workflowId: execution.workflowId, runId: execution.runId, type: execution.type });
  }
  let total = emptyCost();
  const byWorkflowType = new Map<string, TemporalCost>();
  await runBounded(runs.length, selection.concurrency ?? 8, async (index) => {
    const run = runs[index];
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    const cost = costOfHistory(history.events ?? [], window);
    total = addCosts(total, cost);
    byWorkflowType.set(run.type, addCosts(byWorkflowType.get(run.type) ?? emptyCost(), cost));
  });
  const { heartbeats } = selection;
  return { total: { ...total, heartbeats, actions: total.actions + heartbeats }, byWorkflowType };
}

/**
 * Activity heartbeats the server has recorded since it started, from its Prometheus metrics: the
 * frontend's `service_requests` of RecordActivityTaskHeartbeat and …ById (the history service
 * counts each request once more; the dev server serves them with `--metrics-port`). Read before
 * and after a window: the difference is the window's heartbeats.
 */
export async function heartbeatRequests(metricsUrl: string): Promise<number> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  return heartbeatRequestsIn(await response.text());
}

/**
 * heartbeatRequests' reading of a Prometheus text exposition. A server that has recorded no
 * heartbeat has no heartbeat series, so the frontend's requests (its pollers' at least) must be
 * there for 0 to mean none: otherwise the metrics are not the ones this reads, and it throws.
 */
export function heartbeatRequestsIn(exposition: string): number {
  let total = 0;
  let frontendSeries = 0;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith('service_requests{') || !line.includes('service_name="frontend"')) continue;
    frontendSeries += 1;
    if (!/operation="RecordActivityTaskHeartbeat(ById)?"/.test(line)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  if (frontendSeries === 0) throw new Error('the Temporal metrics have no frontend service_requests: heartbeats cannot be counted there');
  return total;
}

const COLUMNS: { title: string; key: keyof TemporalCost }[] = [
  { title: 'workflows started', key: 'workflowsStarted' },
  { title: 'workflow tasks', key: 'workflowTasks' },
  { title: 'activity tasks', key: 'activityTasks' },
  { title: 'local activities', key: 'localActivities' },
  { title: 'signals sent', key: 'signalsSent' },
  { title: 'signals received', key: 'signalsReceived' },
  { title: 'timers', key: 'timers' },
  { title: 'history events', key: 'historyEvents' },
  { title: 'heartbeats', key: 'heartbeats' },
  { title: 'Cloud actions', key: 'actions' },
];

export type CostRow = { label: string; cost: TemporalCost; units: number };

/** The per-unit table: each row is a measured total divided by its number of units (e.g. "per delivery, E=10"). */
export function formatCostTable(rows: readonly CostRow[]): string {
  const header = ['unit', 'units', ...COLUMNS.map((column) => column.title)];
  const body = rows.map((row) => [
    row.label,
    String(row.units),
    ...COLUMNS.map((column) => (row.units > 0 ? fixed(row.cost[column.key] / row.units, 2) : 'n/a')),
  ]);
  return markdownTable(header, body, header.map((_, column) => column >= 1));
}

/** A cost divided by its units, for the JSON reports. */
export function perUnit(cost: TemporalCost, units: number): Record<keyof TemporalCost, number> {
  const result = emptyCost();
  for (const key of Object.keys(result) as (keyof TemporalCost)[]) result[key] = units > 0 ? Math.round((cost[key] / units) * 1000) / 1000 : 0;
  return result;
}
