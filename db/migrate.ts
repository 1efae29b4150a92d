import { databaseUrlOf, loadConfig } from '../config';
import { connectDatabase, migrateToLatest } from './connection';

/** `npm run migrate`: applies pending forward-only migrations to DATABASE_URL. */
async function main() {
  const config = loadConfig();
  const db = connectDatabase(databaseUrlOf(config), 2);
  try {
    const applied = await migrateToLatest(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
