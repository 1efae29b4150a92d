/** Kept for imports of the old path: the environment lives in bench/support/environment.ts. */
export { startIngestionEnvironment, type IngestionEnvironment } from '../support/environment';
