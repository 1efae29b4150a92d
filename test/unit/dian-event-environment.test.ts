import test from 'ava';
import { eventEnvironmentEligibility } from '../../domain/dian/event-eligibility';

// DIAN's habilitación and production catalogues are separate: an event about an invoice of one,
// sent to the other, names a CUFE that environment never validated.
test('an event is refused when the invoice was validated in the other DIAN environment', (t) => {
  const toProduction = eventEnvironmentEligibility('produccion', 'testing');
  t.false(toProduction.eligible);
  if (!toProduction.eligible) t.regex(toProduction.reason, /habilitación .*ProfileExecutionID 2.*produccion/);
  const toHabilitacion = eventEnvironmentEligibility('habilitacion', 'production');
  t.false(toHabilitacion.eligible);
  if (!toHabilitacion.eligible) t.regex(toHabilitacion.reason, /production environment, cbc:ProfileExecutionID 1.*habilitacion/);
});

test('the same environment, the simulator, and a document that does not say are eligible', (t) => {
  t.true(eventEnvironmentEligibility('produccion', 'production').eligible);
  t.true(eventEnvironmentEligibility('habilitacion', 'testing').eligible);
  for (const stored of ['production', 'testing']) t.true(eventEnvironmentEligibility('simulator', stored).eligible);
  for (const stored of ['unspecified', null]) {
    t.true(eventEnvironmentEligibility('produccion', stored).eligible);
    t.true(eventEnvironmentEligibility('habilitacion', stored).eligible);
  }
});
