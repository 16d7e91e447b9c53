// Bolt's message tags and the helpers that read a request's fields (src/bolt/connection.ts
// runs the state machine).

import { type BoltFailure, failure } from './errors.js';
import { Structure } from './packstream.js';

export const REQUEST = {
  hello: 0x01,
  goodbye: 0x02,
  reset: 0x0f,
  run: 0x10,
  begin: 0x11,
  commit: 0x12,
  rollback: 0x13,
  discard: 0x2f,
  pull: 0x3f,
  telemetry: 0x54,
  route: 0x66,
  logon: 0x6a,
  logoff: 0x6b,
} as const;

export const RESPONSE = { success: 0x70, record: 0x71, ignored: 0x7e, failure: 0x7f } as const;

/** A failure the Bolt layer raises; `fatal` closes the connection after the FAILURE. */
export class BoltError extends Error {
  readonly failure: BoltFailure;
  readonly fatal: boolean;

  constructor(f: BoltFailure, fatal: boolean) {
    super(f.message);
    this.failure = f;
    this.fatal = fatal;
  }
}

export function boltError(code: string, message: string, fatal = false): BoltError {
  return new BoltError(failure(code, message), fatal);
}

export function mapField(value: unknown, what: string): Record<string, unknown> {
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    value instanceof Structure ||
    value instanceof Uint8Array ||
    value instanceof Number
  ) {
    throw boltError('Neo.ClientError.Request.Invalid', `${what} must be a map`);
  }
  return value as Record<string, unknown>;
}

/**
 * The token of a HELLO/LOGON auth map: the credentials of the `basic` (its password) and
 * `bearer` schemes, undefined for `none`; any other scheme, or one without credentials, is
 * refused (Neo.ClientError.Security.Unauthorized, closing the connection).
 */
export function authToken(auth: Record<string, unknown>): string | undefined {
  const scheme = auth.scheme ?? 'none';
  if (scheme === 'none') return undefined;
  if (scheme !== 'basic' && scheme !== 'bearer') {
    throw boltError(
      'Neo.ClientError.Security.Unauthorized',
      `unsupported authentication scheme ${JSON.stringify(scheme)}`,
      true,
    );
  }
  if (typeof auth.credentials !== 'string') {
    throw boltError('Neo.ClientError.Security.Unauthorized', `the ${scheme} scheme needs credentials`, true);
  }
  return auth.credentials;
}
