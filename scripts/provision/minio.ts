import { ensureGoTool } from './go-binary';

/** MinIO, the S3-compatible server the S3 blob-store tests run against. MINIO_PATH overrides. */
export function ensureMinio(log?: (line: string) => void): Promise<string> {
  return ensureGoTool(
    {
      name: 'minio',
      module: 'github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c',
      overrideVariable: 'MINIO_PATH',
      purpose: 'the S3 blob-store tests (an S3-compatible server)',
    },
    log,
  );
}
