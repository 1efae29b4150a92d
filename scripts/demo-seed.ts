import type { AppConfig } from '../config';
import type { Repositories } from '../db/repositories';
import { createCompany } from '../admin/create-company';
import { createApiKey, presentApiKey } from '../admin/api-keys';
import { presentCompany } from '../services/presenters/company';
import { SCOPES } from '../domain/scopes';
import { seedDemoDocuments } from '../admin/demo-documents';
import { registerDemoWithSimulator, seedDemoDianSettings } from '../admin/demo-dian';
import type { SecretBox } from '../domain/secret-box';
import type { BlobStore } from '../storage/blob-store';

export const DEMO_COMPANY = { name: 'Demo Compras S.A.S.', nit: '900108281' };

export type DemoSeed = NonNullable<Awaited<ReturnType<typeof seedDemoOnFirstRun>>>;

/**
 * On an empty database only: a demo company with one document of every kind (originals in the
 * blob store), DIAN settings in environment `simulator` with a generated certificate, and an
 * admin key with every scope, to try the API at once. With a simulator URL, the simulator is
 * taught the demo's invoices and three the company has not imported yet (admin/demo-dian.ts).
 */
export async function seedDemoOnFirstRun(
  repositories: Repositories,
  blobStore: BlobStore,
  config: AppConfig,
  dian: { secretBox: SecretBox; simulatorUrl?: string },
) {
  if ((await repositories.companies.count()) > 0) return null;
  const company = await createCompany(repositories, DEMO_COMPANY);
  const documents = await seedDemoDocuments({ repositories, blobStore }, company);
  await seedDemoDianSettings(repositories, dian.secretBox, company.id);
  if (dian.simulatorUrl) await registerDemoWithSimulator(dian.simulatorUrl, company);
  const key = await createApiKey(repositories, {
    prefix: config.apiKeyPrefix,
    name: 'Demo admin key',
    scopes: [...SCOPES],
    role: 'admin',
    companyIds: null,
  });
  return {
    company: presentCompany(company, config.email.domain),
    api_key: { ...presentApiKey(key.record), key: key.fullKey },
    /** FEDEMO1, the purchase invoice the DIAN events hint uses. */
    dian_demo_invoice_id: documents.invoiceFromZip,
  };
}

/** The first-run hint: shell commands that try the API, the DIAN events and a range import. */
export function demoHints(apiUrl: string, demo: DemoSeed): string[] {
  const auth = `-H "Authorization: Bearer ${demo.api_key.key}"`;
  const json = `${auth} -H 'Content-Type: application/json'`;
  const company = `${apiUrl}/v1/companies/${demo.company.id}`;
  const events = `${company}/invoices/${demo.dian_demo_invoice_id}/dian-events`;
  const issuer = `"issuer":{"id_type":"13","id_number":"1020304050","first_name":"Ana","family_name":"Pérez","job_title":"Contadora"}`;
  return [
    `curl ${auth} ${company}/invoices`,
    `# DIAN buyer events on FEDEMO1 (against the simulator), one after the other:`,
    `curl ${json} -d '{"event":"030",${issuer}}' ${events}`,
    `curl ${json} -d '{"event":"032",${issuer}}' ${events}`,
    `curl ${json} -d '{"event":"033"}' ${events}`,
    `curl ${auth} ${events}`,
    `# a tax-authority range import: finds the 3 invoices DIAN has and the company does not`,
    `curl ${json} -d '{"begin_date":"2026-11-01","end_date":"2026-11-30"}' ${company}/dian-imports`,
    `curl ${auth} ${company}/dian-imports`,
  ];
}
