import { runStack } from './stack';

/**
 * `npm start`: the whole service on one machine: one API, one worker and the SMTP intake, each a
 * process of its own, on the Temporal dev server (scripts/stack.ts). `npm run start:cluster`
 * runs the production topology instead (scripts/start-cluster.ts).
 */
runStack({ command: 'npm start', temporal: 'dev-server', apiReplicas: 1, workerReplicas: 1 });
