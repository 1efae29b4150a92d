/**
 * Runs `stop` once on SIGINT/SIGTERM, then exits. A second signal while stopping exits at once,
 * so an impatient Ctrl-C never hangs.
 */
export function onShutdownSignal(stop: () => Promise<void>, log: (line: string) => void): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = true;
    log(`${signal}: shutting down…`);
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
