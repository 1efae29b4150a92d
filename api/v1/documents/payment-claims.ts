import type Router from '@koa/router';
import { createRouter } from '../../router';
import { z } from 'zod';
import type { ApiDependencies } from '../../app-context';
import { requireScope } from '../../middleware/authenticate';
import { loadCompany, type CompanyState } from '../../middleware/company-scope';
import { ApiError } from '../../errors';
import { bodyId, calendarDate, MAX_ID, text } from '../openapi/common';
import { parseBody } from '../../validation';
import { answerCreated } from '../../created';
import { COLLECTIONS } from '../../../domain/documents/collections';
import { presentDocument } from './present';
import { sumDecimals } from '../../../domain/ubl/amounts';

/**
 * A non-negative amount with at most 2 decimals: a decimal string, or a JSON integer (binary
 * fractions such as 0.07 are not exact, so fractional amounts travel as strings).
 */
const amount = (field: string) =>
  z
    .union(
      [
        z.string().regex(/^[0-9]{1,16}(\.[0-9]{1,2})?$/, `${field} must be a non-negative amount with at most 16 digits and 2 decimals.`),
        z.int(`${field} must be a string for a fractional amount, such as "12.50".`).min(0, `${field} must not be negative.`).max(999_999_999_999_999, `${field} is too large.`),
      ],
      { error: `${field} must be a decimal amount (string) or an integer.` },
    )
    .transform((value) => (typeof value === 'number' ? value.toFixed(2) : value));

/** A cuenta de cobro created by hand: no original file, so no PDF (files: available false / none). */
export const paymentClaimIn = z
  .strictObject({
    number: text('number', 100),
    issue_date: calendarDate('issue_date'),
    due_date: calendarDate('due_date').optional(),
    contact_id: bodyId(`contact_id must be a positive integer id: a JSON number from 1 to ${MAX_ID}.`).optional().meta({ description: 'A contact of the same company; another id is 404.' }),
    sub_total: amount('sub_total').optional().meta({ description: 'Defaults to total minus vat.' }),
    vat: amount('vat').optional().meta({ description: 'Defaults to 0.00.' }),
    total: amount('total'),
    currency: z.string({ error: 'currency must be a string.' }).regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code such as COP.').default('COP'),
  })
  .meta({ id: 'PaymentClaimIn' });

export function paymentClaimRoutes({ repositories }: ApiDependencies): Router {
  const router = createRouter();
  router.post('/companies/:company_id/payment-claim-accounts', requireScope('documents:write'), loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const input = parseBody(paymentClaimIn, ctx.request.body);
    const issuedAt = new Date(`${input.issue_date}T12:00:00-05:00`);
    const vat = input.vat ?? '0.00';
    // The base the VAT was charged on: what the total holds besides the VAT, unless given.
    const subTotal = input.sub_total ?? sumDecimals([input.total, `-${vat}`]);
    if (subTotal.startsWith('-')) throw new ApiError(400, 'invalid_parameter', 'vat must not exceed total.', 'vat');
    if (input.contact_id !== undefined) {
      const contact = await repositories.contacts.findVisible({ allCompanies: false, companyIds: [company.id] }, input.contact_id);
      if (!contact) throw new ApiError(404, 'not_found', `Contact ${input.contact_id} was not found in this company.`, 'contact_id');
    }
    const id = await repositories.documents.insert({
      company_id: company.id,
      document_type: 'payment_claim_account',
      kind: 'purchase',
      number: input.number,
      issued_at: issuedAt,
      due_date: input.due_date ?? null,
      contact_id: input.contact_id ?? null,
      sub_total: subTotal,
      vat,
      total: input.total,
      currency: input.currency,
    });
    const created = await repositories.documents.find(company.id, 'payment_claim_account', id);
    answerCreated(ctx, `/v1/companies/${company.id}/${COLLECTIONS.payment_claim_account}/${id}`, presentDocument(created!));
  });
  return router;
}
