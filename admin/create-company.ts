import { isValidNit, nitCheckDigit } from '../domain/nit';
import type { Repositories } from '../db/repositories';
import type { CompanyRow } from '../db/repositories/companies';

export class AdminInputError extends Error {}

export type CreateCompanyInput = { name: string; nit: string };

/** Registers a company; its check digit is always computed, never taken from the caller. */
export async function createCompany(repositories: Repositories, input: CreateCompanyInput): Promise<CompanyRow> {
  const name = input.name.trim();
  if (name === '') throw new AdminInputError('--name must not be empty.');
  const nit = input.nit.replace(/[.\s]/g, '');
  if (!isValidNit(nit)) throw new AdminInputError(`--nit must be 5 to 15 digits without the check digit, got "${input.nit}".`);
  return repositories.companies.insert({ name, nit, dv: nitCheckDigit(nit) });
}
