/** Kept for imports of the old path: see bench/support/stats.ts and bench/support/report.ts. */
export { percentile } from '../support/stats';
export { fixedOrDash as fixed, markdownTable } from '../support/report';
