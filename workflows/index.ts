// Bundle entry: every workflow the worker runs is exported from here.
export { systemCheckWorkflow } from './system-check';
