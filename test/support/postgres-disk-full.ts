import type { Knex } from 'knex';

/**
 * Runs `body` while Postgres refuses, with SQLSTATE 53100 (disk_full) as a full disk would, the
 * first `tries` updates of `table` whose rows match `condition` (SQL over OLD and NEW), then lets
 * them through. `tried()` tells how many matching updates there were (nextval is not rolled back
 * with the refused statement, so the sequence counts them). Everything is dropped afterwards.
 */
export async function whilePostgresRefusesUpdates(
  db: Knex,
  refusal: { table: string; condition: string; tries: number },
  body: (tried: () => Promise<number>) => Promise<void>,
): Promise<void> {
  const { table, condition, tries } = refusal;
  const name = `refuse_${table}_updates`;
  try {
    await db.raw(`CREATE SEQUENCE ${name}_tries`);
    await db.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (${condition}) AND nextval('${name}_tries') <= ${tries} THEN
          RAISE EXCEPTION 'could not extend file "base/16384/16999": No space left on device' USING ERRCODE = 'disk_full';
        END IF;
        RETURN NEW;
      END $$`);
    await db.raw(`CREATE TRIGGER ${name} BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    // Before the first nextval the sequence reads 1 with is_called false: no try yet.
    await body(async () => Number((await db.raw(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS tries FROM ${name}_tries`)).rows[0].tries));
  } finally {
    await db.raw(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await db.raw(`DROP FUNCTION IF EXISTS ${name}()`);
    await db.raw(`DROP SEQUENCE IF EXISTS ${name}_tries`);
  }
}
