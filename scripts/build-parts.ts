import { mkdir, readFile, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const projectRoot = path.resolve(__dirname, '..');

/** The service's processes, by the name of their compiled entry (`<dir>/<name>.js`). */
export const PART_ENTRIES = { api: 'api/main.ts', worker: 'worker/main.ts', intake: 'intake/main.ts' } as const;
export type PartName = keyof typeof PART_ENTRIES;

/**
 * Compiles the API, worker and intake entries once into `outputDir` (one CommonJS file each,
 * with a source map for stack traces), so the parts run on plain `node` instead of loading tsx
 * and compiling TypeScript in every process (about 50 MiB of RSS each, docs/performance.md
 * "Memory"). Packages stay external: `outputDir/node_modules` links to the project's.
 *
 * The layout keeps two paths working:
 * - the CPU pool's thread file: services/cpu/pool.ts loads `worker-entry.cjs` beside its own
 *   module, which in the compiled layout is `outputDir`; the compiled task module is written
 *   there under that name, so pool threads load no tsx either;
 * - every other `__dirname` of the project's modules (the config's project root, the migrations,
 *   the workflow sources) is replaced by the source file's directory, so they point into the
 *   project as under tsx. The workflow bundle itself is built by scripts/bundle-workflows.ts.
 */
export async function buildParts(outputDir: string): Promise<void> {
  await mkdir(outputDir, { recursive: true });
  const modules = path.join(outputDir, 'node_modules');
  await rm(modules, { force: true });
  await symlink(path.join(projectRoot, 'node_modules'), modules, 'dir');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    absWorkingDir: projectRoot,
  } as const;
  await Promise.all([
    build({ ...common, entryPoints: Object.entries(PART_ENTRIES).map(([out, entry]) => ({ in: entry, out })), outdir: outputDir, plugins: [sourceDirnames(['services/cpu/pool.ts'])] }),
    build({ ...common, entryPoints: ['services/cpu/tasks.ts'], outfile: path.join(outputDir, 'worker-entry.cjs'), plugins: [sourceDirnames([])] }),
  ]);
}

/** The compiled entry of `part` in a directory made by buildParts. */
export function compiledEntry(outputDir: string, part: PartName): string {
  return path.join(outputDir, `${part}.js`);
}

/**
 * The directory of compiled parts for processes this one spawns: set by `npm start` (DATA_DIR/run),
 * `npm test` and the benchmarks after buildParts. Unset, parts run from source through tsx
 * (the fallback for a test file run without `npm test`).
 */
export const COMPILED_PARTS_ENV = 'COMPILED_PARTS_DIR';

/**
 * `node` arguments that run `part`: its compiled entry when `compiledDir` (default: the
 * COMPILED_PARTS_DIR environment variable) is given, else its TypeScript source through tsx.
 */
export function partNodeArguments(part: PartName, compiledDir = process.env[COMPILED_PARTS_ENV]): string[] {
  const flags = part === 'worker' ? workerV8Flags() : [];
  return compiledDir ? [...flags, '--enable-source-maps', compiledEntry(compiledDir, part)] : [...flags, '--import', 'tsx', path.join(projectRoot, PART_ENTRIES[part])];
}

/**
 * The worker's V8 heap sizes (WORKER_V8_FLAGS overrides them; empty for V8's own). Without a
 * limit V8 sizes the old generation from the machine's memory (about 4 GiB here) and lets
 * garbage pile up far past the 300 MiB budget before collecting. The young generation's 4 MiB
 * semi-spaces (2 until 2026-11-24) gave the webhook pipeline a better ratio to its baseline for
 * about 10 MiB more; 8 MiB took an import burst's worker past the budget (docs/performance.md
 * "Memory" and "The worker's young generation").
 */
export const DEFAULT_WORKER_V8_FLAGS = '--max-old-space-size=128 --max-semi-space-size=4';

function workerV8Flags(): string[] {
  return (process.env.WORKER_V8_FLAGS ?? DEFAULT_WORKER_V8_FLAGS).split(/\s+/).filter(Boolean);
}

/** Replaces `__dirname` in the project's modules by their source directory, except in `keep` (see buildParts). */
function sourceDirnames(keep: string[]): Plugin {
  const kept = new Set(keep.map((file) => path.join(projectRoot, file)));
  return {
    name: 'source-dirnames',
    setup(context) {
      context.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`) || kept.has(args.path)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('__dirname')) return undefined;
        return { contents: source.replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path))), loader: 'ts' };
      });
    },
  };
}

/** `npx tsx scripts/build-parts.ts [outputDir]` (default dist/run). */
async function main() {
  const output = path.resolve(process.argv[2] ?? path.join('dist', 'run'));
  await buildParts(output);
  console.log(`parts compiled into ${output}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
