// Preloaded into the worker process (`node --require`, see scripts/build-parts.ts'
// partNodeArguments and package.json's worker:compiled), in its main thread and in every thread
// it starts. The main thread keeps --enable-source-maps: its stack traces name the TypeScript
// sources. The other threads turn Node's source maps off: the Temporal SDK's workflow thread
// compiles a small function (`Function('return globalThis…')`) two or three times per promise
// of every workflow, and with source maps on Node looks each compiled text over for a source
// map comment; a replay of an import's history cost 0.6 ms of CPU less per workflow without
// (docs/performance.md, session 38). Workflow errors lose nothing: the SDK maps their stacks
// with the bundle's own source map. The CPU pool's threads' errors name the compiled
// worker-entry.cjs's lines instead of the sources.
'use strict';
const { isMainThread } = require('node:worker_threads');

if (!isMainThread) process.setSourceMapsEnabled(false);
