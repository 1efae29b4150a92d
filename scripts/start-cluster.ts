import { runStack } from './stack';

/**
 * `npm run start:cluster`: the production topology on one machine (docs/scaling.md): the
 * Temporal server (frontend, history, matching, worker services) on the embedded Postgres with
 * its UI server, two API processes behind one port (a round-robin TCP balancer in this
 * process, scripts/embedded/tcp-balancer.ts), two worker processes and the SMTP intake.
 */
runStack({ command: 'npm run start:cluster', temporal: 'cluster', apiReplicas: 2, workerReplicas: 2 });
