'use strict';
// Piscina loads this file in every worker thread of the CPU pool (services/cpu/pool.ts). Processes started
// through tsx (`npm start`, `npm test`, the Docker image's `npm run api|worker`) pass tsx's hooks
// to their threads in execArgv; a thread of a plain `node` process registers tsx here, so the
// TypeScript task module loads either way.
if (!require.extensions['.ts']) require('tsx/cjs/api').register();
module.exports = require('./tasks.ts');
