import { createDianDocumentActivities } from './dian-documents';
import { createDianEventActivities } from './dian-events';
import { createDianImportActivities } from './dian-imports';
import type { DianActivityDependencies as GatewayDependencies } from './dian-gateway';
import type { IngestionActivityDependencies } from './ingestion';

/** DIAN events (030/032/033) and tax-authority import runs (docs/dian.md). */
export type DianActivityDependencies = GatewayDependencies & IngestionActivityDependencies;

export function createDianActivities(deps: DianActivityDependencies) {
  return { ...createDianEventActivities(deps), ...createDianImportActivities(deps), ...createDianDocumentActivities(deps) };
}
