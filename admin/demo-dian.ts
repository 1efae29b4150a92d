import { randomBytes } from 'node:crypto';
import type { Repositories } from '../db/repositories';
import { loadPkcs12 } from '../domain/dian/certificate';
import type { SecretBox } from '../domain/secret-box';
import { registerDocumentWithSimulator } from '../integrations/dian/simulator/admin-client';
import { demoElectronicInvoice, demoSeededInvoiceXmls } from './demo-documents';
import { generateTestPkcs12 } from './test-certificate';

/**
 * The demo company's DIAN side (docs/dian.md, "The demo"): settings in environment `simulator`
 * with a generated self-signed certificate, and the simulator taught what DIAN would know — the
 * demo's electronic invoices, and three more the service has not seen yet, so a range import
 * finds new documents.
 */

/** Received invoices the simulator holds and the demo company has not imported (issued 2026-11-10…13). */
export function demoUnseenInvoices(companyNit: string): { number: string; cufe: string; xml: Buffer }[] {
  const specs = [
    { number: 'PAP-1001', supplierNit: '860002964', supplierName: 'Papelería La Esquina S.A.S.', description: 'Resmas de papel carta', issueDate: '2026-11-10', subTotal: '250000.00' },
    { number: 'TRV-2044', supplierNit: '830122566', supplierName: 'Transportes del Valle S.A.S.', description: 'Flete Bogotá - Cali', issueDate: '2026-11-12', subTotal: '1800000.00' },
    { number: 'STA-0307', supplierNit: '901245780', supplierName: 'Servicios TI Andinos S.A.S.', description: 'Soporte técnico noviembre', issueDate: '2026-11-13', subTotal: '3200000.00' },
  ];
  return specs.map(({ number, supplierNit, ...options }) => ({ number, ...demoElectronicInvoice(number, supplierNit, companyNit, options) }));
}

/** Stores DIAN settings (environment simulator, a fresh self-signed certificate) for the demo company. */
export async function seedDemoDianSettings(repositories: Repositories, secretBox: SecretBox, companyId: number): Promise<void> {
  const password = randomBytes(12).toString('base64url');
  const pkcs12 = generateTestPkcs12(password, { commonName: 'Demo Compras firma de pruebas', organization: 'Demo Compras S.A.S.' });
  const certificate = loadPkcs12(pkcs12.p12, password);
  await repositories.dianSettings.upsert(companyId, {
    environment: 'simulator',
    software_id: 'demo-software-0000-0000-000000000001',
    software_pin_sealed: secretBox.seal('12345'),
    certificate_p12_sealed: secretBox.seal(pkcs12.p12.toString('base64')),
    certificate_password_sealed: secretBox.seal(password),
    certificate_subject: certificate.subject,
    certificate_issuer: certificate.issuer,
    certificate_not_after: certificate.notAfter,
    event_number_prefix: null,
  });
}

/** Teaches the simulator the demo company's invoices (seeded and unseen). Returns how many it took. */
export async function registerDemoWithSimulator(simulatorUrl: string, company: { id: number; nit: string }): Promise<number> {
  let registered = 0;
  for (const xml of [...demoSeededInvoiceXmls(company), ...demoUnseenInvoices(company.nit).map((invoice) => invoice.xml)]) {
    if (await registerDocumentWithSimulator(simulatorUrl, xml)) registered++;
  }
  return registered;
}
