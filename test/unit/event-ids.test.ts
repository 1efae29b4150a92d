import test from 'ava';
import { publishedEventId } from '../../domain/webhooks/event-ids';

test('a published event id is the RFC 4122 version-5 UUID of workflow id, type and subject', (t) => {
  // Python: uuid.uuid5(uuid.UUID('6f1c2a4e-9b7d-4c1a-8e3f-5d2b7a9c0e14'), 'q/file-import-1\ndocument.imported\n1')
  t.is(publishedEventId('q/file-import-1', 'document.imported', 1), 'b1d86366-af0a-53d2-8cc4-84b9c1820838');
});

test('the same workflow publishing the same event about the same record gets the same id; anything else another', (t) => {
  const id = publishedEventId('q/file-import-7', 'contact.created', 3);
  t.is(publishedEventId('q/file-import-7', 'contact.created', 3), id);
  t.not(publishedEventId('q/file-import-7', 'contact.created', 4), id);
  t.not(publishedEventId('q/file-import-7', 'contact.updated', 3), id);
  t.not(publishedEventId('q/file-import-8', 'contact.created', 3), id);
  t.not(publishedEventId('q/export-1', 'export.failed', undefined), publishedEventId('q/export-1', 'export.succeeded', undefined));
});
