import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { register } from 'prom-client';

/** One metric family as parse-prometheus-text-format gives it (counters/gauges: value; histograms: count, sum, buckets). */
export type Family = {
  name: string;
  type: string;
  help: string;
  metrics: { labels?: Record<string, string>; value?: string; count?: string; sum?: string; buckets?: Record<string, string> }[];
};

/** GET /metrics, parsed with a Prometheus text-format parser (fails on anything else than 200). */
export async function scrape(url: string): Promise<Family[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return parsePrometheusTextFormat(await response.text()) as Family[];
}

/**
 * The sum of a family's samples whose labels include `labels` (0 when none): a counter's or
 * gauge's value, a histogram's observation count.
 */
export function sampleSum(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const matching = family?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) ?? [];
  return matching.reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

/** This process's own prom-client registry, parsed like a scrape (tests whose worker runs in-process). */
export async function scrapeThisProcess(): Promise<Family[]> {
  return parsePrometheusTextFormat(await register.metrics()) as Family[];
}

/** How much a series moved between two scrapes. */
export function moved(before: Family[], after: Family[], name: string, labels: Record<string, string> = {}): number {
  return sampleSum(after, name, labels) - sampleSum(before, name, labels);
}
