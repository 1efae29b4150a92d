/** Kept for imports of the old path: the clean-up stack is bench/support/cleanup.ts. */
export { CleanupStack as Cleanup } from '../support/cleanup';
