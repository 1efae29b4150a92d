/** Every PromQL expression of a Grafana dashboard (panels, nested rows, template variables). */
export function dashboardExpressions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(dashboardExpressions);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'expr' && typeof value === 'string' ? [value] : dashboardExpressions(value)));
}

/**
 * The metric families a dashboard's queries read, sorted: names of our prefixes outside label
 * matchers, a histogram's _bucket/_sum/_count series under the family's name.
 */
export function dashboardMetricNames(dashboard: unknown): string[] {
  const names = new Set<string>();
  for (const expr of dashboardExpressions(dashboard)) {
    const outsideMatchers = expr.replace(/\{[^}]*\}/g, '').replace(/"[^"]*"/g, '');
    for (const [name] of outsideMatchers.matchAll(/\b(?:invoicing|http|nodejs|process|temporal)_[a-zA-Z0-9_]*/g)) {
      names.add(name.replace(/_(bucket|sum|count)$/, ''));
    }
  }
  return [...names].sort();
}
