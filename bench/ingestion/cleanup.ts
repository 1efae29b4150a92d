/**
 * Clean-up steps run once, last registered first, whether the benchmark finishes, throws or
 * is interrupted: a failing step is logged and the others still run.
 */
export class Cleanup {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly log: (line: string) => void) {}

  push(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        try {
          await step.run();
        } catch (error) {
          this.log(`clean-up "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return this.running;
  }

  /** First SIGINT/SIGTERM: clean up, exit 130; a second one exits at once. */
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
