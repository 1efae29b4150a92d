import type { Database } from '../connection';
import { columnsOf } from '../columns';
import { PREPARED } from '../prepared-statement';

export type DianSettingsEnvironment = 'habilitacion' | 'produccion' | 'simulator';

export type DianSettingsRow = {
  company_id: number;
  environment: DianSettingsEnvironment;
  software_id: string;
  /** SecretBox-sealed; see db/migrations/20261122000800_company_dian_settings.ts. */
  software_pin_sealed: string;
  certificate_p12_sealed: string;
  certificate_password_sealed: string;
  certificate_subject: string;
  certificate_issuer: string;
  certificate_not_after: Date;
  /** Prefix of the company's event numbers; null = DEFAULT_EVENT_NUMBER_PREFIX. */
  event_number_prefix: string | null;
  /** NIT (without check digit) of the technology provider whose software sends the events; null = the company's own. */
  software_provider_nit: string | null;
  created_at: Date;
  updated_at: Date;
};

/** Event numbers are `${prefix}${sequence}`; a prefix no other invoicing software is likely to use. */
export const DEFAULT_EVENT_NUMBER_PREFIX = 'DIS';

export function eventNumberPrefix(row: Pick<DianSettingsRow, 'event_number_prefix'>): string {
  return row.event_number_prefix ?? DEFAULT_EVENT_NUMBER_PREFIX;
}

export type DianSettingsInput = Omit<DianSettingsRow, 'company_id' | 'created_at' | 'updated_at' | 'event_number_prefix' | 'software_provider_nit'> & {
  /** Absent or null: DEFAULT_EVENT_NUMBER_PREFIX. */
  event_number_prefix?: string | null;
  /** Absent or null: the company's own NIT. */
  software_provider_nit?: string | null;
};

const DIAN_SETTINGS_COLUMNS = columnsOf<DianSettingsRow>({
  company_id: true, environment: true, software_id: true, software_pin_sealed: true, certificate_p12_sealed: true, certificate_password_sealed: true,
  certificate_subject: true, certificate_issuer: true, certificate_not_after: true, event_number_prefix: true, software_provider_nit: true,
  created_at: true, updated_at: true,
});

export function createDianSettingsRepository(db: Database) {
  return {
    find(companyId: number): Promise<DianSettingsRow | undefined> {
      // DIAN's steps after an import, and every DIAN event, read them (prepared).
      return db<DianSettingsRow>('company_dian_settings').where({ company_id: companyId }).first(DIAN_SETTINGS_COLUMNS).options(PREPARED);
    },

    /** Creates or replaces the company's settings. */
    async upsert(companyId: number, given: DianSettingsInput): Promise<DianSettingsRow> {
      const input = { ...given, event_number_prefix: given.event_number_prefix ?? null, software_provider_nit: given.software_provider_nit ?? null };
      const [row] = await db<DianSettingsRow>('company_dian_settings')
        .insert({ company_id: companyId, ...input })
        .onConflict('company_id')
        .merge({ ...input, updated_at: db.fn.now() as unknown as Date })
        .returning('*');
      return row;
    },
  };
}

export type DianSettingsRepository = ReturnType<typeof createDianSettingsRepository>;
