import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { markdownTable } from './support/report';

/**
 * `tsx bench/cpu-profile-summary.ts <file.cpuprofile> [--last-seconds N] [--top N]`: where a V8
 * CPU profile (node --cpu-prof; bench:ingestion writes one per API and worker process with
 * BENCH_CPU_PROF_DIR) spent its time — self time by package or area and by function. With
 * --last-seconds only the profile's last N seconds count (the measured phases, not start-up).
 */

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** The package (node_modules/<name> or @scope/name), node's internals, the project's folder, or V8's pseudo-frames. */
function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const projectPath = url.replace(/^file:\/\//, '');
  const relative = path.relative(process.cwd(), projectPath);
  return relative.startsWith('..') ? projectPath : `project: ${relative.split(path.sep)[0]}/`;
}

function argument(name: string): number | null {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : null;
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: tsx bench/cpu-profile-summary.ts <file.cpuprofile> [--last-seconds N] [--top N]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const lastSeconds = argument('--last-seconds');
  const top = argument('--top') ?? 25;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = lastSeconds === null ? profile.startTime : profile.endTime - lastSeconds * 1e6;

  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let time = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < from) return;
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    total += delta;
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + delta);
    const where = url ? `${area} ${path.basename(url)}:${lineNumber + 1}` : area;
    const key = `${functionName || '(anonymous)'} — ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
  });
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => [name, (micros / 1000).toFixed(0), ((100 * micros) / total).toFixed(1)]);
  const heading = `${path.basename(file)}: ${(total / 1000).toFixed(0)} ms on the main thread (idle excluded)${lastSeconds === null ? '' : `, last ${lastSeconds} s`}`;
  process.stdout.write(
    `${heading}\n\n${markdownTable(['self time by area', 'ms', '%'], rows(byArea), [false, true, true])}\n\n` +
      `${markdownTable(['self time by function', 'ms', '%'], rows(byFunction), [false, true, true])}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
