/** What an API key may do. Documented in docs/api.md ("Scopes and roles"). */
export const SCOPES = ['documents:read', 'documents:write', 'contacts:read', 'webhooks:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
