/**
 * Company inbox addresses: `<inbox_token>@<INBOX_DOMAIN>` (docs/email-intake.md). The token is
 * 20 lowercase hex characters (80 random bits, made by the companies repository) stored in
 * companies.inbox_token; the local part
 * is compared case-insensitively and a `+tag` suffix is ignored (`<token>+proveedores@…`).
 */
export const INBOX_TOKEN_PATTERN = /^[a-z0-9]{8,64}$/;

export function inboxAddress(token: string, domain: string): string {
  return `${token}@${domain}`;
}

/**
 * The inbox token an envelope recipient addresses, or null when the address is not one of
 * ours (another domain, or a local part that cannot be a token). The domain must already be
 * lowercase (config does it).
 */
export function inboxTokenOf(address: string, domain: string): string | null {
  const trimmed = address.trim().replace(/^<|>$/g, '');
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return null;
  const recipientDomain = trimmed.slice(at + 1).toLowerCase().replace(/\.$/, '');
  if (recipientDomain !== domain) return null;
  let local = trimmed.slice(0, at);
  if (local.startsWith('"') && local.endsWith('"') && local.length >= 2) local = local.slice(1, -1);
  const token = local.split('+', 1)[0].toLowerCase();
  return INBOX_TOKEN_PATTERN.test(token) ? token : null;
}
