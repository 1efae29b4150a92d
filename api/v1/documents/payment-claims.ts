import Router from '@koa/router';
import { z } from 'zod';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, type CompanyState } from '../../middleware/company-scope';
import { invalidParameter } from '../../errors';
import { parseBody } from '../../validation';
import { presentDocument } from './present';

const money = z
  .union([z.string(), z.number()], { error: 'must be a decimal amount.' })
  .transform((value) => String(value).trim())
  .refine((value) => /^\d{1,16}(\.\d{1,2})?$/.test(value), 'must be a non-negative amount with at most 2 decimals.');

const date = z.string({ error: 'must be a date as YYYY-MM-DD.' }).regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD.');

/** A cuenta de cobro created by hand: no original file, so no PDF (files: available false / none). */
export const paymentClaimIn = z.strictObject({
  number: z.string().trim().min(1, 'number is required.').max(100),
  issue_date: date,
  due_date: date.optional(),
  contact_id: z.number({ error: 'contact_id must be an integer.' }).int().positive().optional(),
  sub_total: money.optional(),
  vat: money.optional(),
  total: money,
  currency: z.string().regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code such as COP.').default('COP'),
});

export function paymentClaimRoutes({ repositories }: ApiDependencies): Router {
  const router = new Router();
  router.post('/companies/:company_id/payment-claim-accounts', requireScope('documents:write'), loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const input = parseBody(paymentClaimIn, ctx.request.body);
    const issuedAt = new Date(`${input.issue_date}T12:00:00-05:00`);
    if (Number.isNaN(issuedAt.getTime())) throw invalidParameter('issue_date', 'issue_date is not a calendar date.');
    if (input.due_date && Number.isNaN(Date.parse(input.due_date))) throw invalidParameter('due_date', 'due_date is not a calendar date.');
    if (input.contact_id !== undefined) {
      const contact = await repositories.contacts.findVisible({ allCompanies: false, companyIds: [company.id] }, input.contact_id);
      if (!contact) throw invalidParameter('contact_id', `No contact ${input.contact_id} in this company.`);
    }
    const id = await repositories.documents.insert({
      company_id: company.id,
      document_type: 'payment_claim_account',
      kind: 'purchase',
      number: input.number,
      issued_at: issuedAt,
      due_date: input.due_date ?? null,
      contact_id: input.contact_id ?? null,
      sub_total: input.sub_total ?? input.total,
      vat: input.vat ?? '0.00',
      total: input.total,
      currency: input.currency,
    });
    const created = await repositories.documents.find(company.id, 'payment_claim_account', id);
    ctx.status = 201;
    ctx.body = presentDocument(created!);
  });
  return router;
}
