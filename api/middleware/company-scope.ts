import type { Middleware } from 'koa';
import type { CompaniesRepository, CompanyRow } from '../../db/repositories/companies';
import type { AuthState } from './authenticate';
import { ApiError, notFound } from '../errors';
import { ID_SPELLING, MAX_ID, readId } from '../v1/openapi/common';

export type CompanyState = AuthState & { company: CompanyRow };

/** Parses a positive integer id path parameter, naming it in the 400 when it is not one. */
export function parseIdParam(value: string | undefined, param: string): number {
  const id = readId(value);
  if (id === undefined) throw new ApiError(400, 'invalid_parameter', `${param} ${ID_SPELLING}, at most ${MAX_ID}.`, param);
  return id;
}

/**
 * Resolves :company_id through the key's company access. A company the key may not see is
 * answered exactly like one that does not exist (404), so ids reveal nothing. authenticate has
 * usually read it already, with the key (AuthState.requestedCompany); it is read here otherwise.
 */
export function loadCompany(companies: CompaniesRepository): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as CompanyState;
    const companyId = parseIdParam(ctx.params?.company_id, 'company_id');
    const prefetched = state.requestedCompany?.id === companyId ? state.requestedCompany : undefined;
    const company = prefetched ? prefetched.row : await companies.findVisible(state.apiKey.access, companyId);
    if (!company) throw notFound(`Company ${companyId}`);
    state.company = company;
    await next();
  };
}
