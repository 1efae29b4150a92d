import type { Database } from '../connection';

export type UploadedFileRow = {
  id: number;
  company_id: number;
  type: 'UPLOAD' | 'API' | 'EMAIL' | 'DIAN';
  status: string;
  file_name: string;
  extension: string;
  content_type: string;
  size: number;
  sha256: string;
  blob_key: string;
  kind_hint: string | null;
  dian_importation_id: number | null;
  idempotency_key: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
};

export type NewUploadedFile = Pick<UploadedFileRow, 'company_id' | 'type' | 'file_name' | 'extension' | 'content_type' | 'size' | 'sha256' | 'blob_key'> &
  Partial<Pick<UploadedFileRow, 'status' | 'kind_hint' | 'dian_importation_id' | 'idempotency_key'>>;

export function createUploadedFilesRepository(db: Database) {
  return {
    async insert(file: NewUploadedFile): Promise<UploadedFileRow> {
      const [row] = await db<UploadedFileRow>('uploaded_files').insert(file).returning('*');
      return row;
    },

    find(companyId: number, id: number): Promise<UploadedFileRow | undefined> {
      return db<UploadedFileRow>('uploaded_files').where({ company_id: companyId, id }).first();
    },
  };
}

export type UploadedFilesRepository = ReturnType<typeof createUploadedFilesRepository>;
