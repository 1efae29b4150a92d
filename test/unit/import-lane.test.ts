import test from 'ava';
import { importsInline, INLINE_IMPORT_MAX_BYTES } from '../../domain/ingestion/import-lane';

test('files up to the inline limit import inline; larger ones, and unknown sizes, as an activity task', (t) => {
  t.true(importsInline(0));
  t.true(importsInline(40_000));
  t.true(importsInline(INLINE_IMPORT_MAX_BYTES));
  t.false(importsInline(INLINE_IMPORT_MAX_BYTES + 1));
  t.false(importsInline(50 * 1024 * 1024));
  t.false(importsInline(undefined));
  t.false(importsInline(Number.NaN));
  t.false(importsInline(-1));
});
