import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import type { AuthState } from '../../middleware/authenticate';
import { loadCompany, type CompanyState } from '../../middleware/company-scope';
import { presentCompany } from '../../../services/presenters/company';
import type { CompanyRow } from '../../../db/repositories/companies';

export function companiesRoutes({ repositories, config }: ApiDependencies): Router {
  const router = createRouter();
  const present = (row: CompanyRow) => presentCompany(row, config.email.domain);
  router.get('/companies', async (ctx) => {
    const { apiKey } = ctx.state as AuthState;
    const companies = await repositories.companies.listVisible(apiKey.access);
    ctx.body = companies.map(present);
  });
  router.get('/companies/:company_id', loadCompany(repositories.companies), (ctx) => {
    ctx.body = present((ctx.state as CompanyState).company);
  });
  return router;
}
