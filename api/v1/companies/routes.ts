import Router from '@koa/router';
import type { ApiDependencies } from '../../app-context';
import type { AuthState } from '../../middleware/authenticate';
import { loadCompany, type CompanyState } from '../../middleware/company-scope';
import { presentCompany } from './present';

export function companiesRoutes({ repositories }: ApiDependencies): Router {
  const router = new Router();
  router.get('/companies', async (ctx) => {
    const { apiKey } = ctx.state as AuthState;
    const companies = await repositories.companies.listVisible(apiKey.access);
    ctx.body = companies.map(presentCompany);
  });
  router.get('/companies/:company_id', loadCompany(repositories.companies), (ctx) => {
    ctx.body = presentCompany((ctx.state as CompanyState).company);
  });
  return router;
}
