import type Router from '@koa/router';
import { createRouter } from '../../router';
import { z } from 'zod';
import type { ApiDependencies } from '../../app-context';
import { requireRole, requireScope } from '../../middleware/authenticate';
import { loadCompany, type CompanyState } from '../../middleware/company-scope';
import { ApiError, invalidParameter, notFound } from '../../errors';
import { parseBody } from '../../validation';
import type { LoadedCertificate } from '../../../domain/dian/certificate';
import { CpuBudgetExceeded, loadCertificateInPool } from '../../../services/cpu/pool';
import { eventNumberPrefix, type DianSettingsRow } from '../../../db/repositories/dian-settings';
import { plainString, text, timestamp } from '../openapi/common';

/** PUT /v1/companies/{company_id}/dian-settings (docs/dian.md). */
export const dianSettingsIn = z
  .strictObject({
    environment: z.enum(['habilitacion', 'produccion', 'simulator'], { error: 'environment must be habilitacion, produccion or simulator.' }),
    software_id: text('software_id', 100),
    software_pin: text('software_pin', 100).meta({ writeOnly: true }),
    certificate_p12_base64: z
      .string({ error: 'certificate_p12_base64 must be a string.' })
      .max(65_536, 'certificate_p12_base64 must be at most 65536 characters.')
      .regex(/^[A-Za-z0-9+/=\s]*[A-Za-z0-9+/=][A-Za-z0-9+/=\s]*$/, 'certificate_p12_base64 must be base64.')
      .meta({ writeOnly: true, description: 'The PKCS#12 (.p12/.pfx) in base64; it must open with the password.' }),
    certificate_password: plainString('certificate_password', 200).meta({ writeOnly: true }),
    /** Prefix of the event numbers (cbc:ID); DEFAULT_EVENT_NUMBER_PREFIX when absent. */
    event_number_prefix: z
      .string({ error: 'event_number_prefix must be a string.' })
      .regex(/^[A-Za-z0-9-]{1,20}$/, 'event_number_prefix must be 1 to 20 letters, digits or dashes.')
      .optional(),
    /** NIT of the technology provider whose software sends the events (sts:ProviderID); the company's own when absent. */
    software_provider_nit: z
      .string({ error: 'software_provider_nit must be a string.' })
      .regex(/^[0-9]{5,15}$/, 'software_provider_nit must be the NIT without check digit: 5 to 15 digits.')
      .optional(),
  })
  .meta({ id: 'DianSettingsIn' });

export const dianSettingsOut = z
  .object({
    environment: z.enum(['habilitacion', 'produccion', 'simulator']),
    software_id: z.string(),
    event_number_prefix: z.string(),
    software_provider_nit: z.string().nullable(),
    certificate: z.object({ subject: z.string(), issuer: z.string(), not_after: timestamp }),
    updated_at: timestamp,
  })
  .meta({ id: 'DianSettings' });

function present(row: DianSettingsRow): z.infer<typeof dianSettingsOut> {
  return {
    environment: row.environment,
    software_id: row.software_id,
    event_number_prefix: eventNumberPrefix(row),
    software_provider_nit: row.software_provider_nit,
    certificate: { subject: row.certificate_subject, issuer: row.certificate_issuer, not_after: row.certificate_not_after.toISOString() },
    updated_at: row.updated_at.toISOString(),
  };
}

/** A company's DIAN settings: secrets (PIN, PKCS#12, password) are sealed and never returned. */
export function dianSettingsRoutes(deps: ApiDependencies): Router {
  const { repositories, secretBox } = deps;
  const router = createRouter();
  const admin = [requireScope('documents:write'), requireRole('admin')];

  router.put('/companies/:company_id/dian-settings', ...admin, loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const input = parseBody(dianSettingsIn, ctx.request.body);
    const p12 = Buffer.from(input.certificate_p12_base64.replace(/\s+/g, ''), 'base64');
    let certificate: LoadedCertificate;
    try {
      certificate = await loadCertificateInPool(p12, input.certificate_password);
    } catch (error) {
      if (error instanceof CpuBudgetExceeded) throw invalidParameter('certificate_p12_base64', `The certificate cannot be used: ${error.message}.`);
      const code = (error as { code?: string }).code;
      if (code === 'too_many_iterations') {
        throw new ApiError(400, 'certificate_iterations_exceeded', `The certificate cannot be used: ${(error as Error).message}.`, 'certificate_p12_base64');
      }
      const param = code === 'wrong_password' ? 'certificate_password' : 'certificate_p12_base64';
      throw invalidParameter(param, `The certificate cannot be used: ${(error as Error).message.replace(/\.$/, '')}.`);
    }
    const row = await repositories.dianSettings.upsert(company.id, {
      environment: input.environment,
      software_id: input.software_id,
      software_pin_sealed: secretBox.seal(input.software_pin),
      certificate_p12_sealed: secretBox.seal(p12.toString('base64')),
      certificate_password_sealed: secretBox.seal(input.certificate_password),
      certificate_subject: certificate.subject,
      certificate_issuer: certificate.issuer,
      certificate_not_after: certificate.notAfter,
      event_number_prefix: input.event_number_prefix ?? null,
      software_provider_nit: input.software_provider_nit ?? null,
    });
    ctx.body = present(row);
  });

  router.get('/companies/:company_id/dian-settings', requireScope('documents:read'), loadCompany(repositories.companies), async (ctx) => {
    const { company } = ctx.state as CompanyState;
    const row = await repositories.dianSettings.find(company.id);
    if (!row) throw notFound(`DIAN settings of company ${company.id}`);
    ctx.body = present(row);
  });

  return router;
}
