/** Postgres' unique_violation (SQLSTATE 23505): an insert or update met a unique index or constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || violated === constraint);
}

/**
 * Postgres' data exceptions (SQLSTATE class 22): a value the statement carries cannot be stored
 * (a NUL in a text, a number beyond its column's precision, an impossible date). The same
 * values fail the same way on every retry.
 */
export function isDataException(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && code.startsWith('22');
}
