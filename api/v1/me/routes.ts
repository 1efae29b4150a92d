import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import type { AuthState } from '../../middleware/authenticate';
import { presentCompany } from '../../../services/presenters/company';
import type { CurrentKeyOut } from './schemas';

export function meRoutes({ repositories, config }: ApiDependencies): Router {
  const router = createRouter();
  router.get('/me', async (ctx) => {
    const { apiKey } = ctx.state as AuthState;
    const companies = await repositories.companies.listVisible(apiKey.access);
    const body: CurrentKeyOut = {
      id: apiKey.id,
      name: apiKey.name,
      prefix: apiKey.prefix,
      scopes: apiKey.scopes,
      role: apiKey.role,
      all_companies: apiKey.access.allCompanies,
      created_at: apiKey.createdAt.toISOString(),
      companies: companies.map((company) => presentCompany(company, config.email.domain)),
    };
    ctx.body = body;
  });
  return router;
}
