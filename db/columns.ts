/**
 * Every column of a row type, as a list for `select` and `returning`: the object form makes the
 * compiler refuse a list that misses a field of the type or names one it lacks. For statements
 * that must name their columns instead of `*` (prepared statements, db/prepared-statement.ts).
 */
export function columnsOf<Row>(columns: { readonly [Column in keyof Row]-?: true }): (keyof Row & string)[] {
  return Object.keys(columns) as (keyof Row & string)[];
}

/** The columns qualified by a table alias (`d.id`, …). */
export function qualified(alias: string, columns: readonly string[]): string[] {
  return columns.map((column) => `${alias}.${column}`);
}
