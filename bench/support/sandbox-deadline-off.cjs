// Preloaded (`node --require`) into a worker for a measurement only, never into the service: the
// Temporal SDK calls into a workflow's sandbox with vm's `timeout` (its isolateExecutionTimeout,
// 5 s), and Node enforces each such timeout with a watchdog thread and event loop of its own,
// created and joined per call (nodejs/node#47739). Without the option no watchdog is made, and
// nothing stops workflow code that never returns: what that guard costs is what this shows
// (docs/performance.md, "The sandbox's deadlock watchdog"). Worker threads inherit --require,
// so the SDK's workflow threads load it too.
'use strict';
const vm = require('node:vm');

const runInContext = vm.Script.prototype.runInContext;
vm.Script.prototype.runInContext = function runInContextWithoutDeadline(context, options) {
  if (options === undefined || options.timeout === undefined) return runInContext.call(this, context, options);
  const { timeout: _dropped, ...rest } = options;
  return runInContext.call(this, context, rest);
};
