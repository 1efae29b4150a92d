import type Router from '@koa/router';
import { createRouter } from '../../router';
import type { ApiDependencies } from '../../app-context';
import { requireScope, type AuthState } from '../../middleware/authenticate';
import { loadCompany, parseIdParam, type CompanyState } from '../../middleware/company-scope';
import { notFound } from '../../errors';
import { buildPage, readPageRequest } from '../../pagination';
import { presentContact } from '../../../services/presenters/contact';

export const CONTACT_PAGE = { defaultLimit: 50, maxLimit: 200 };

/** Contacts (third parties): scope contacts:read; a contact of a company the key cannot see is 404. */
export function contactsRoutes({ repositories, cursorKey }: ApiDependencies): Router {
  const router = createRouter();

  router.get('/contacts/:contact_id', requireScope('contacts:read'), async (ctx) => {
    const { apiKey } = ctx.state as AuthState;
    const id = parseIdParam(ctx.params.contact_id, 'contact_id');
    const contact = await repositories.contacts.findVisible(apiKey.access, id);
    if (!contact) throw notFound(`Contact ${id}`);
    ctx.body = presentContact(contact);
  });

  router.get('/companies/:company_id/contacts', requireScope('contacts:read'), loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const scope = `contacts:${company.id}`;
    const page = readPageRequest(ctx.query, cursorKey, scope, CONTACT_PAGE);
    const rows = await repositories.contacts.listForCompany(company.id, page.limit + 1, page.after?.[0] as number | undefined);
    ctx.body = buildPage(rows, page, cursorKey, scope, (row) => [row.id], presentContact);
  });

  return router;
}
