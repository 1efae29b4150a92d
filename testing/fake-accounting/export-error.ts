import { ExportError } from '../../integrations/accounting/port';

/** The ExportError a promise rejects with; anything else (or success) fails the test. */
export async function exportError(promise: Promise<unknown>): Promise<ExportError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ExportError)) throw new Error(`expected an ExportError, got ${String(error)}`);
  return error;
}
