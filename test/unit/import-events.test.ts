import test from 'ava';
import { importEvents } from '../../domain/ingestion/import-events';

const record = { company_id: 7, id: 41, status: 'DONE', documents: [] };

test('an import tells each touched contact first, then the file: its record without company_id', (t) => {
  const events = importEvents({
    status: 'DONE',
    record,
    contacts: [
      { type: 'contact.created', data: { id: 3 } },
      { type: 'contact.updated', data: { id: 4 } },
    ],
  });
  t.deepEqual(events, [
    { companyId: 7, type: 'contact.created', data: { id: 3 } },
    { companyId: 7, type: 'contact.updated', data: { id: 4 } },
    { companyId: 7, type: 'document.imported', data: { id: 41, status: 'DONE', documents: [] } },
  ]);
});

test('a failed import is document.import_failed, with no contact', (t) => {
  t.deepEqual(importEvents({ status: 'ERROR', record: { ...record, status: 'ERROR' }, contacts: [] }), [
    { companyId: 7, type: 'document.import_failed', data: { id: 41, status: 'ERROR', documents: [] } },
  ]);
});
