import test from 'ava';
import { storableText } from '../../domain/storable-text';

test('control characters and whitespace runs become one space; a NUL never reaches Postgres', (t) => {
  t.is(storableText('  bad\u0000thing\r\n\tthere\u007F ', 100), 'bad thing there');
});

test('a lone surrogate becomes U+FFFD; a well-paired one (an emoji) stays', (t) => {
  t.is(storableText('a\ud800b\udfffc 🧾', 100), 'a\uFFFDb\uFFFDc 🧾');
});

test('cut to max characters with an ellipsis, never inside a surrogate pair', (t) => {
  t.is(storableText('abcdef', 6), 'abcdef');
  t.is(storableText('abcdefg', 6), 'abcdef…');
  t.is(storableText('🧾🧾🧾', 2), '🧾🧾…');
});
