// The fields of Bolt requests the connection checks (docs/bolt.md): the database a request
// names, its access mode, its tx_timeout, the routing address of HELLO.

import type { AccessModeName } from '../native/addon.js';
import { ACCESS_LADDER, ROLE_MOST_ACCESS, type Role } from '../runtime/access.js';
import { boltError } from './messages.js';

/** The database name Bolt clients see (one database per service). */
export const DATABASE_NAME = 'neo4j';

/** Checks the database a request names: one database, `neo4j`; no impersonation. */
export function checkDatabase(extra: Record<string, unknown>): void {
  const db = extra.db;
  if (db !== undefined && db !== null && db !== DATABASE_NAME) {
    throw boltError(
      'Neo.ClientError.Database.DatabaseNotFound',
      `there is no database ${JSON.stringify(db)}; this server has one, ${DATABASE_NAME}`,
    );
  }
  if (extra.imp_user !== undefined && extra.imp_user !== null) {
    throw boltError('Neo.ClientError.Security.Forbidden', 'impersonation is not supported');
  }
}

/** The access mode a request runs in: read for mode `r`, else all `role` allows. */
export function requestedAccess(
  extra: Record<string, unknown>,
  role: Role | null,
): { mode: AccessModeName; readOnly: boolean } {
  const requested = extra.mode ?? 'w';
  if (requested !== 'r' && requested !== 'w') {
    throw boltError('Neo.ClientError.Request.Invalid', `unknown access mode ${JSON.stringify(requested)}`);
  }
  if (requested === 'r') return { mode: ACCESS_LADDER[0]!, readOnly: true };
  return { mode: ROLE_MOST_ACCESS[role ?? 'reader'], readOnly: false };
}

/** tx_timeout (ms) from a request's extra, checked; undefined for none (or 0). */
export function txTimeout(extra: Record<string, unknown>): number | undefined {
  const timeout = extra.tx_timeout;
  if (timeout === undefined || timeout === null) return undefined;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 0) {
    throw boltError('Neo.ClientError.Request.Invalid', 'tx_timeout must be a whole number of milliseconds');
  }
  return timeout === 0 ? undefined : timeout;
}

/** The address HELLO's `routing` context gives, if any. */
export function routingAddress(extra: Record<string, unknown>): string | null {
  const routing = extra.routing;
  if (
    routing !== null &&
    typeof routing === 'object' &&
    typeof (routing as Record<string, unknown>).address === 'string'
  ) {
    return (routing as Record<string, string>).address as string;
  }
  return null;
}

/** The count of records a PULL or DISCARD asks for (`n`; -1: all). */
export function pullCount(extra: Record<string, unknown>, request: string): number {
  const n = extra.n ?? -1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n === 0 || n < -1) {
    throw boltError(
      'Neo.ClientError.Request.Invalid',
      `${request} needs n: a positive number of records, or -1 for all`,
    );
  }
  return n === -1 ? Number.POSITIVE_INFINITY : n;
}
