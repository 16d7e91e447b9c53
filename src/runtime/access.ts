// The access modes a statement may run in and what each client role may use: the one ladder
// every caller of the engine goes by (the HTTP routes and transactions, Bolt, the slot pool,
// authentication). The engine orders the modes the same way (native/main/request.h); the
// addon names them (AccessModeName, src/native/addon.ts).

import type { AccessModeName } from '../native/addon.js';

/** What a client may do: read; read and change data; everything, schema and files too. */
export type Role = 'reader' | 'writer' | 'admin';

/** The access modes from least to most: each allows what the ones before it allow. */
export const ACCESS_LADDER: readonly AccessModeName[] = ['read', 'insert', 'update', 'schema'];

/** Each mode's rung, under its name and its one-letter alias (docs/http-api.md). */
const RUNG: Readonly<Record<string, number>> = {
  read: 0,
  r: 0,
  insert: 1,
  i: 1,
  update: 2,
  u: 2,
  schema: 3,
  s: 3,
};

/** The highest access mode each role may use. */
export const ROLE_MOST_ACCESS: Readonly<Record<Role, AccessModeName>> = {
  reader: 'read',
  writer: 'update',
  admin: 'schema',
};

/** The roles, least first. */
export const ROLES = Object.keys(ROLE_MOST_ACCESS) as readonly Role[];

/** The highest access mode of all (what a client without a role may use). */
export const MOST_ACCESS: AccessModeName = 'schema';

/** Whether `role` names a role. */
export function isRole(role: unknown): role is Role {
  return typeof role === 'string' && Object.hasOwn(ROLE_MOST_ACCESS, role);
}

/** Whether `mode` names an access mode (or its one-letter alias). */
export function isAccessMode(mode: unknown): mode is string {
  return typeof mode === 'string' && Object.hasOwn(RUNG, mode);
}

/** Whether access mode `mode` allows no more than `limit` does (unknown names: false). */
export function accessModeWithin(mode: string, limit: string): boolean {
  return (RUNG[mode] ?? ACCESS_LADDER.length) <= (RUNG[limit] ?? -1);
}

/** Whether `mode` is the read-only rung (a transaction opened with it is READ ONLY). */
export function isReadOnly(mode: string | undefined): boolean {
  return mode !== undefined && RUNG[mode] === 0;
}

/** The highest access mode a client of `role` may use; every mode without a role. */
export function mostAccessOf(role: Role | undefined): AccessModeName {
  return role === undefined ? MOST_ACCESS : ROLE_MOST_ACCESS[role];
}
