import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { costOfHistory, formatCostTable, heartbeatRequestsIn, LOCAL_ACTIVITY_MARKER } from '../../bench/support/temporal-cost';

const EventType = temporal.api.enums.v1.EventType;
const recorded = async (name: string) =>
  temporal.api.history.v1.History.decode(await readFile(path.resolve(__dirname, '../workflows/histories', name))).events;

test('a recorded delivery (delivered on attempt 3, pre-patch code) costs what its history shows', async (t) => {
  // Each attempt: deliverAttempt then reportAttemptOutcome (older runs reported every attempt),
  // a timer before attempts 2 and 3; a workflow task after every activity and timer, and the first.
  const cost = costOfHistory(await recorded('delivery-delivered-on-attempt-3.binpb'));
  t.deepEqual(cost, {
    executions: 1,
    workflowsStarted: 1,
    workflowTasks: 9,
    workflowTaskFailures: 0,
    activityTasks: 6,
    localActivities: 0,
    signalsSent: 0,
    signalsReceived: 0,
    timers: 2,
    historyEvents: 51,
    heartbeats: 0,
    // 1 start + 6 activities + 2 timers
    actions: 9,
  });
});

test('a recorded endpoint entity counts the client signals it received as actions', async (t) => {
  const cost = costOfHistory(await recorded('endpoint-2-failures-then-success.binpb'));
  t.is(cost.signalsReceived, 3);
  t.is(cost.activityTasks, 3); // one mirrorConsecutiveFailures per outcome
  t.is(cost.workflowTasks, 6); // the first, one per signal, one per activity completed (the last still open)
  t.is(cost.historyEvents, 30);
  // 1 start (signal-with-start) + 3 signals from a client (no external sender) + 3 activities
  t.is(cost.actions, 7);
});

type RawEvent = { eventId: number; eventType: temporal.api.enums.v1.EventType; eventTime: { seconds: number }; [attributes: string]: unknown };
const event = (eventId: number, eventType: temporal.api.enums.v1.EventType, seconds: number, attributes: object = {}): RawEvent => ({
  eventId,
  eventType,
  eventTime: { seconds },
  ...attributes,
});
const localActivity = (eventId: number, taskCompletedId: number, seconds: number) =>
  event(eventId, EventType.EVENT_TYPE_MARKER_RECORDED, seconds, {
    markerRecordedEventAttributes: { markerName: LOCAL_ACTIVITY_MARKER, workflowTaskCompletedEventId: taskCompletedId },
  });

/** Two local activities in one workflow task, one in the next; an activity retried twice; a workflow-sent signal. */
const synthetic = temporal.api.history.v1.History.fromObject({ events: [
  event(1, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 100),
  event(2, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 100),
  event(3, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 100),
  event(4, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 100),
  localActivity(5, 4, 100),
  localActivity(6, 4, 100),
  event(7, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 100),
  event(8, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, 110, { activityTaskStartedEventAttributes: { attempt: 3 } }),
  event(9, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 110),
  event(10, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 110),
  event(11, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 110),
  event(12, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, 110),
  event(13, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 120),
  event(14, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 120),
  event(15, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 120),
  localActivity(16, 15, 120),
  event(17, EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, 120),
  event(18, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, 121, {
    workflowExecutionSignaledEventAttributes: { signalName: 'reply', externalWorkflowExecution: { workflowId: 'peer', runId: 'r' } },
  }),
  event(19, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, 121),
] }).events;

test('local activities of one workflow task are one action; retries and workflow-sent signals are counted once', (t) => {
  const cost = costOfHistory(synthetic);
  t.is(cost.localActivities, 3);
  t.is(cost.activityTasks, 3);
  t.is(cost.workflowTasks, 3);
  t.is(cost.workflowTaskFailures, 1);
  t.is(cost.signalsSent, 1);
  t.is(cost.signalsReceived, 1);
  // 1 start + 2 local-activity workflow tasks + 1 activity with 2 retries (3) + 1 sent signal;
  // the received one came from a workflow, whose history pays for it.
  t.is(cost.actions, 1 + 2 + 3 + 1);
});

test('a window counts only its events, so a long-lived entity contributes its share', (t) => {
  const cost = costOfHistory(synthetic, { from: new Date(115_000), to: new Date(125_000) });
  t.is(cost.historyEvents, 7);
  t.is(cost.workflowsStarted, 0);
  t.is(cost.workflowTasks, 1);
  t.is(cost.localActivities, 1);
  t.is(cost.actions, 2); // the local-activity workflow task and the sent signal
  t.is(costOfHistory(synthetic, { from: new Date(200_000), to: new Date(300_000) }).executions, 0);
});

test('the table shows each measured total per unit', (t) => {
  const table = formatCostTable([{ label: 'per delivery', cost: costOfHistory(synthetic), units: 2 }]).split('\n');
  t.is(table.length, 3);
  t.regex(table[0], /\| unit +\| units \| workflows started \|.*\| Cloud actions \|/);
  // 19 events and 7 actions over 2 units
  t.regex(table[2], /^\| per delivery \| +2 \| +0\.50 \|.*\| +9\.50 \| +0\.00 \| +3\.50 \|$/);
});

test('heartbeats are read from the frontend requests of the server metrics, each request once', (t) => {
  const exposition = [
    '# HELP service_requests service_requests counter',
    'service_requests{namespace="default",operation="RecordActivityTaskHeartbeat",service_name="frontend"} 10',
    'service_requests{namespace="default",operation="RecordActivityTaskHeartbeat",service_name="history"} 10',
    'service_requests{namespace="default",operation="RecordActivityTaskHeartbeatById",service_name="frontend"} 2',
    'service_requests{namespace="default",operation="RespondActivityTaskCompleted",service_name="frontend"} 40',
    'action{action_type="grpc_RecordActivityTaskHeartbeat",namespace="default",operation="RecordActivityTaskHeartbeat",service_name="frontend"} 10',
  ].join('\n');
  t.is(heartbeatRequestsIn(exposition), 12);
  t.is(heartbeatRequestsIn('service_requests{namespace="default",operation="PollActivityTaskQueue",service_name="frontend"} 3'), 0);
  t.throws(() => heartbeatRequestsIn('# nothing of Temporal\nprocess_cpu_seconds_total 1'), { message: /no frontend service_requests/ });
});
