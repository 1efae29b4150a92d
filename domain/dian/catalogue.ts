/** DIAN's two environments, as ProfileExecutionID tells them (1 production, 2 habilitación/testing). */
export type DianEnvironment = 'production' | 'testing';

/**
 * DIAN's public catalogue of validated documents, where a CUFE/CUDE is looked up (the QR of a
 * graphic representation and of an event point at it): catalogo-vpfe for production,
 * catalogo-vpfe-hab for habilitación, whose documents production's catalogue does not hold.
 */
export function dianCatalogueHost(environment: DianEnvironment): string {
  return environment === 'production' ? 'catalogo-vpfe.dian.gov.co' : 'catalogo-vpfe-hab.dian.gov.co';
}

/** The catalogue's lookup page of one document. */
export function dianDocumentSearchUrl(environment: DianEnvironment, code: string): string {
  return `https://${dianCatalogueHost(environment)}/document/searchqr?documentkey=${code}`;
}

/**
 * A document's stored environment as the API, its summaries and the exports show it: 'unspecified'
 * (the XML does not say) and NULL (not read yet, or no XML) are both null.
 */
export function knownDianEnvironment(stored: string | null): DianEnvironment | null {
  return stored === 'production' || stored === 'testing' ? stored : null;
}

/** cbc:ProfileExecutionID of a DIAN document: 1 production, 2 testing; null when absent or other. */
export function dianEnvironmentOf(profileExecutionId: string | null): DianEnvironment | null {
  if (profileExecutionId === '1') return 'production';
  if (profileExecutionId === '2') return 'testing';
  return null;
}
