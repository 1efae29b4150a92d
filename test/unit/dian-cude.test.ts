import { createHash } from 'node:crypto';
import test from 'ava';
import { eventCude, eventCudeString, softwareSecurityCode, type EventCudeInput } from '../../domain/dian/cude';

const INPUT: EventCudeInput = {
  id: 'AR0001',
  issueDate: '2024-05-02',
  issueTime: '10:15:00-05:00',
  senderNit: '900108281',
  receiverNit: '800197268',
  responseCode: '030',
  referencedDocumentId: 'SETP990000002',
  documentTypeCode: '01',
  softwarePin: '75315',
};

// ID + IssueDate + IssueTime + sender NIT + receiver NIT + ResponseCode + invoice ID + DocumentTypeCode + PIN
const CONCATENATED = 'AR00012024-05-0210:15:00-05:00900108281800197268030SETP9900000020175315';

const sha384 = (value: string) => createHash('sha384').update(value, 'utf8').digest('hex');

test('the CUDE string concatenates the fields in DIAN order', (t) => {
  t.is(eventCudeString(INPUT), CONCATENATED);
});

test('the CUDE is the lowercase hex SHA-384 of that string', (t) => {
  const cude = eventCude(INPUT);
  t.is(cude, sha384(CONCATENATED));
  t.regex(cude, /^[0-9a-f]{96}$/);
});

test('every field changes the CUDE', (t) => {
  const base = eventCude(INPUT);
  for (const key of Object.keys(INPUT) as (keyof EventCudeInput)[]) {
    const changed = { ...INPUT, [key]: key === 'responseCode' ? '033' : `${INPUT[key]}9` } as EventCudeInput;
    t.not(eventCude(changed), base, key);
  }
});

test('the receiver and sender NITs are not interchangeable', (t) => {
  t.not(eventCude({ ...INPUT, senderNit: INPUT.receiverNit, receiverNit: INPUT.senderNit }), eventCude(INPUT));
});

test('SoftwareSecurityCode is SHA-384 of software id + PIN + document number', (t) => {
  const code = softwareSecurityCode('56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', '75315', 'AR0001');
  t.is(code, sha384('56f2ae4e-9812-4fad-9255-08fcfcd5ccb075315AR0001'));
  t.regex(code, /^[0-9a-f]{96}$/);
});

test('the hash covers non-ASCII input as UTF-8', (t) => {
  t.is(eventCude({ ...INPUT, id: 'AÑO1' }), sha384('AÑO12024-05-0210:15:00-05:00900108281800197268030SETP9900000020175315'));
});

test("the annex's own CUDE test vector (Anexo técnico RADIAN, numeral 12.1.1.1) gives its published hash", (t) => {
  // Num_DE 1, 2019-04-30 19:48:50-05:00, sender 99998888, receiver 800197268, 030, invoice FE123, type 01, PIN 11111.
  const vector: EventCudeInput = {
    id: '1', issueDate: '2019-04-30', issueTime: '19:48:50-05:00', senderNit: '99998888', receiverNit: '800197268',
    responseCode: '030', referencedDocumentId: 'FE123', documentTypeCode: '01', softwarePin: '11111',
  };
  t.is(eventCudeString(vector), '12019-04-3019:48:50-05:0099998888800197268030FE1230111111');
  t.is(eventCude(vector), '0d91ba25b01f5e7dbda870a11b274501d3a62a73e91932c473c86c93f12a142a2ac45876efcde3e679024a01c0be41f9');
});
