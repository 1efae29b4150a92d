/**
 * A stack of clean-up steps run once, in reverse order of registration, whether the
 * benchmark finishes, throws or is interrupted (SIGINT/SIGTERM).
 */
export class CleanupStack {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly log: (line: string) => void) {}

  push(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /** Runs every step even when one fails; a second call waits for the first. */
  runAll(): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length > 0) {
        const step = this.steps.pop();
        if (!step) break;
        try {
          await step.run();
        } catch (error) {
          this.log(`clean-up "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return this.running;
  }

  /** On the first SIGINT/SIGTERM clean up and exit 130; a second signal exits at once. */
  exitOnSignals(): void {
    let signalled = false;
    const handler = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(130);
      signalled = true;
      this.log(`${signal}: stopping and cleaning up…`);
      void this.runAll().finally(() => process.exit(130));
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  }
}
