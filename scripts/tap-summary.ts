export type TapSummary = { passed: number; failed: number; skipped: number };

/**
 * Counts TAP test points. A runner that exits non-zero with no failing test point
 * (a crash, an uncaught exception outside a test) still counts as one failure.
 */
export function summariseTap(output: string, exitCode: number): TapSummary {
  const summary: TapSummary = { passed: 0, failed: 0, skipped: 0 };
  for (const line of output.split('\n')) {
    const point = /^(not ok|ok)\b.*?(#\s*(SKIP|TODO)\b.*)?$/i.exec(line);
    if (!point) continue;
    if (point[3]) summary.skipped += 1;
    else if (point[1].toLowerCase() === 'ok') summary.passed += 1;
    else summary.failed += 1;
  }
  if (exitCode !== 0 && summary.failed === 0) summary.failed = 1;
  return summary;
}
