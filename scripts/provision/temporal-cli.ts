import { ensureGoTool } from './go-binary';

/**
 * The Temporal CLI (dev server + UI). Later tags than v1.5.1 carry a `replace` directive and
 * cannot be `go install`ed. TEMPORAL_CLI_PATH overrides.
 */
export function ensureTemporalCli(log?: (line: string) => void): Promise<string> {
  return ensureGoTool(
    {
      name: 'temporal',
      module: 'github.com/temporalio/cli/cmd/temporal@v1.5.1',
      overrideVariable: 'TEMPORAL_CLI_PATH',
      purpose: 'the local Temporal dev server (or point TEMPORAL_ADDRESS at a running server)',
    },
    log,
  );
}
