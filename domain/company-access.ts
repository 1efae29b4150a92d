/** Which companies an API key may see: all of them, or an explicit list. */
export type CompanyAccess = { allCompanies: true } | { allCompanies: false; companyIds: number[] };

export function canAccessCompany(access: CompanyAccess, companyId: number): boolean {
  return access.allCompanies || access.companyIds.includes(companyId);
}
