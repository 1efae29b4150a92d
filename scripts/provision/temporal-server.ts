import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { commandOnPath } from './commands';
import { ensureGoTool, type GoTool } from './go-binary';

/**
 * The production Temporal engine, built from the Go module proxy like the CLI: the server
 * (frontend, history, matching and worker services), its SQL schema tool and the UI server.
 * v1.32.1 is the newest server release this machine's Go accepts without a `replace` directive;
 * docker-compose.yml pins the same versions (temporalio/server, temporalio/ui).
 */
export const TEMPORAL_SERVER_VERSION = '1.32.1';
export const TEMPORAL_UI_SERVER_VERSION = '2.55.0';

const SERVER_MODULE = 'go.temporal.io/server';

const TOOLS = {
  server: {
    name: 'temporal-server',
    installedAs: 'server',
    module: `${SERVER_MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
    overrideVariable: 'TEMPORAL_SERVER_PATH',
    purpose: 'the Temporal cluster on Postgres (npm run start:cluster, the scale test)',
  },
  /** Creates and migrates the `temporal` and `temporal_visibility` databases. */
  sqlTool: {
    name: 'temporal-sql-tool',
    installedAs: 'sql',
    module: `${SERVER_MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    overrideVariable: 'TEMPORAL_SQL_TOOL_PATH',
    purpose: "the Temporal cluster's Postgres schema (npm run start:cluster, the scale test)",
  },
  /** Its web assets are embedded in the Go module, so go install needs nothing but the module proxy. */
  uiServer: {
    name: 'temporal-ui-server',
    installedAs: 'server',
    module: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_SERVER_VERSION}`,
    overrideVariable: 'TEMPORAL_UI_SERVER_PATH',
    purpose: 'the Temporal UI of npm run start:cluster',
  },
} satisfies Record<string, GoTool>;

/** TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH and TEMPORAL_UI_SERVER_PATH override. */
export const ensureTemporalServer = (log?: (line: string) => void) => ensureGoTool(TOOLS.server, log);
export const ensureTemporalSqlTool = (log?: (line: string) => void) => ensureGoTool(TOOLS.sqlTool, log);
export const ensureTemporalUiServer = (log?: (line: string) => void) => ensureGoTool(TOOLS.uiServer, log);

/**
 * The server's Postgres schema folders (schema/postgresql/v12/{temporal,visibility}/versioned),
 * shipped in the server's Go module: `go mod download` puts it in the module cache (already
 * there after the go install above, so this is a lookup). TEMPORAL_SCHEMA_DIR names a copy of
 * schema/postgresql/v12 to use instead (e.g. with a prebuilt TEMPORAL_SERVER_PATH and no Go).
 */
export async function temporalPostgresSchemaDir(): Promise<string> {
  const configured = process.env.TEMPORAL_SCHEMA_DIR;
  if (configured) {
    if (!existsSync(path.join(configured, 'temporal', 'versioned'))) throw new Error(`TEMPORAL_SCHEMA_DIR=${configured} has no temporal/versioned folder.`);
    return configured;
  }
  const go = commandOnPath('go');
  if (!go) throw new Error("The Temporal server's schema comes from its Go module: install Go, or set TEMPORAL_SCHEMA_DIR to a copy of schema/postgresql/v12.");
  const { stdout } = await promisify(execFile)(go, ['mod', 'download', '-json', `${SERVER_MODULE}@v${TEMPORAL_SERVER_VERSION}`], { maxBuffer: 1 << 20 });
  const { Dir, Error: failure } = JSON.parse(stdout) as { Dir?: string; Error?: string };
  if (!Dir) throw new Error(`go mod download ${SERVER_MODULE}@v${TEMPORAL_SERVER_VERSION} failed: ${failure ?? stdout}`);
  return path.join(Dir, 'schema', 'postgresql', 'v12');
}
