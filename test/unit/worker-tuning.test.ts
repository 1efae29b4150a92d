import test from 'ava';
import { inlineWebhookAttempts, workerTuning } from '../../worker/tuning';

test('inline webhook attempts: half the workflow-task slots unless set; 0 turns them off; never every slot', (t) => {
  t.is(inlineWebhookAttempts({}), 5, 'half of the 10 default slots');
  t.is(inlineWebhookAttempts({ TEMPORAL_MAX_WORKFLOW_TASKS: '40' }), 20);
  t.is(inlineWebhookAttempts({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '3' }), 3);
  t.is(inlineWebhookAttempts({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '0' }), 0);
  t.throws(() => inlineWebhookAttempts({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '10' }), { message: /must be below TEMPORAL_MAX_WORKFLOW_TASKS \(10\)/ });
  t.throws(() => inlineWebhookAttempts({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '-1' }));
  t.is(workerTuning({}).maxConcurrentWorkflowTaskExecutions, 10);
});
