import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { DianSettingsRow } from '../db/repositories/dian-settings';
import { assertCurrentlyValid, type LoadedCertificate } from '../domain/dian/certificate';
import { loadCertificateInPool } from '../services/cpu/pool';
import type { SecretBox } from '../domain/secret-box';
import type { DianGateway } from '../integrations/dian/port';
import { createSoapDianGateway, DIAN_ENVIRONMENTS } from '../integrations/dian/soap-gateway';

export type DianActivityDependencies = {
  repositories: Repositories;
  secretBox: SecretBox;
  /**
   * DIAN_SIMULATOR_URL: where companies whose environment is 'simulator' are sent; bulkListing
   * (DIAN_BULK_LISTING=assumed): gateways get DIAN's assumed bulk download (docs/dian.md).
   */
  dian: { simulatorUrl?: string; bulkListing?: boolean };
};

/** What a company needs to talk to DIAN: the gateway, its certificate and its software data. */
export type CompanyDian = {
  settings: DianSettingsRow;
  gateway: DianGateway;
  certificate: LoadedCertificate;
  software: { softwareId: string; pin: string };
};

/** A non-retryable activity failure whose type is the code the record and webhook carry. */
export function dianFailure(code: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

/** A failure of DIAN's worth retrying (network, timeout, HTTP 5xx): retryable, with a `dian_…` code. */
export function isRetryableDianFailure(error: unknown): error is ApplicationFailure & { type: string } {
  return error instanceof ApplicationFailure && !error.nonRetryable && (error.type?.startsWith('dian_') ?? false);
}

/** Parsed certificates by company and settings version; at most CERTIFICATE_CACHE_SIZE, oldest out first. */
const certificates = new Map<string, LoadedCertificate>();
const CERTIFICATE_CACHE_SIZE = 256;

/**
 * The company's certificate, parsed (in the CPU pool) once per settings version and kept in this process's memory:
 * a PUT of new settings seals the file and password afresh (new nonces), so the key changes.
 * Checked for expiry on every use, like a fresh parse would.
 */
async function openCertificate(deps: DianActivityDependencies, settings: DianSettingsRow): Promise<LoadedCertificate> {
  const version = createHash('sha256').update(settings.certificate_p12_sealed).update('\0').update(settings.certificate_password_sealed).digest('base64url');
  const key = `${settings.company_id}:${version}`;
  let certificate = certificates.get(key);
  try {
    if (!certificate) {
      certificate = await loadCertificateInPool(
        Buffer.from(deps.secretBox.open(settings.certificate_p12_sealed), 'base64'),
        deps.secretBox.open(settings.certificate_password_sealed),
      );
      for (const [cached] of certificates) if (cached.startsWith(`${settings.company_id}:`)) certificates.delete(cached);
      if (certificates.size >= CERTIFICATE_CACHE_SIZE) certificates.delete(certificates.keys().next().value!);
      certificates.set(key, certificate);
    }
    assertCurrentlyValid(certificate);
  } catch (error) {
    throw dianFailure('certificate_invalid', `The company's DIAN certificate cannot be used: ${(error as Error).message}`);
  }
  return certificate;
}

/**
 * The gateway for one company, from its settings: DIAN habilitación/producción by
 * DIAN_ENVIRONMENTS, or the simulator (the only target with the ListReceivedDocuments
 * extension). The certificate is unsealed and parsed once per settings version
 * (openCertificate) and never leaves the process.
 */
export async function companyDian(deps: DianActivityDependencies, companyId: number): Promise<CompanyDian> {
  const settings = await deps.repositories.dianSettings.find(companyId);
  if (!settings) throw dianFailure('dian_settings_missing', `Company ${companyId} has no DIAN settings.`);
  let url: string;
  if (settings.environment === 'simulator') {
    if (!deps.dian.simulatorUrl) throw dianFailure('dian_simulator_unavailable', 'The DIAN simulator is not configured (DIAN_SIMULATOR_URL).');
    url = deps.dian.simulatorUrl;
  } else {
    url = DIAN_ENVIRONMENTS[settings.environment];
  }
  const certificate = await openCertificate(deps, settings);
  const gateway = createSoapDianGateway({
    url,
    credentials: { privateKeyPem: certificate.privateKeyPem, certificatePem: certificate.certificatePem },
    extensions: { listReceivedDocuments: settings.environment === 'simulator' },
    bulkListing: deps.dian.bulkListing === true,
  });
  return { settings, gateway, certificate, software: { softwareId: settings.software_id, pin: deps.secretBox.open(settings.software_pin_sealed) } };
}
