/** The roles a member of an account holds, strongest first (docs/team.md). */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/**
 * What a request may need, besides being signed in:
 * - `view`: read the account's websites, statistics, activity and settings (never a secret);
 * - `secrets`: see a secret the service keeps showing (an ACTIVE configuration's client secret);
 * - `change`: websites, their keys, OAuth2 configurations, webhooks, policies, and the account's API keys;
 * - `members`: invite, remove and change the role of members who are not owners;
 * - `ownership`: make or unmake owners, close the account.
 */
export const PERMISSIONS = ['view', 'secrets', 'change', 'members', 'ownership'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The table of roles, the one place it is written. */
const GRANTS: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: ['view', 'secrets', 'change', 'members'],
  developer: ['view', 'secrets', 'change'],
  viewer: ['view'],
};

export const mayDo = (role: Role, permission: Permission): boolean => GRANTS[role].includes(permission);

/** What a role may do to another member's role: only an owner touches ownership (giving it or taking it away). */
export const mayAssign = (actor: Role, from: Role, to: Role): boolean =>
  mayDo(actor, 'members') && ((from !== 'owner' && to !== 'owner') || mayDo(actor, 'ownership'));
