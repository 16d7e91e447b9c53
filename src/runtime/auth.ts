// Who may use a service: bearer tokens, each with a role (docs/security.md, "Authentication").
//
// A token is kept only as its SHA-256 digest; a request's token is hashed and compared with
// every known digest in constant time (crypto.timingSafeEqual, no early exit), so neither the
// comparison nor the lookup tells an attacker how much of a guess was right.

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ROLES, type Role } from './access.js';

/** One token of `ServiceConfig.auth`: the token itself, or its SHA-256 digest in hex. */
export interface AuthToken {
  /** The token as clients send it (at least 16 characters, no spaces). */
  token?: string;
  /** Instead of `token`: the hex SHA-256 digest of the token, so the file holds no secret. */
  sha256?: string;
  role: Role;
}

export interface AuthConfig {
  tokens: AuthToken[];
}

export const MIN_TOKEN_LENGTH = 16;
const MAX_TOKEN_LENGTH = 4096;
/** Visible ASCII: what a token may hold (RFC 6750's token68 and more). */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Who sent a request: its role, and which of the service's tokens it carried (its index; -1
 * when the service has none), so that what one client opens (a transaction) stays its own.
 */
export interface Client {
  role: Role;
  token: number;
}

/** The client every request is when the service has no tokens. */
export const ANONYMOUS_ADMIN: Client = Object.freeze({ role: 'admin', token: -1 });

/** The verdict on a request's Authorization header. */
export type AuthVerdict = Client | { refused: 'missing' | 'invalid' };

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Bearer-token authentication with roles, built from a validated AuthConfig. */
export class Authenticator {
  readonly #digests: Buffer[];
  readonly #roles: Role[];

  /** @internal Use `resolveAuth`. */
  constructor(entries: ReadonlyArray<{ digest: Buffer; role: Role }>) {
    this.#digests = entries.map((entry) => entry.digest);
    this.#roles = entries.map((entry) => entry.role);
  }

  get size(): number {
    return this.#digests.length;
  }

  /** The role of the token a request's `Authorization: Bearer <token>` header carries. */
  authenticate(authorization: string | undefined): AuthVerdict {
    if (authorization === undefined || authorization.length === 0) return { refused: 'missing' };
    const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
    if (!match || match[1]!.length > MAX_TOKEN_LENGTH) return { refused: 'invalid' };
    return this.authenticateToken(match[1]!);
  }

  /** The role of `token` itself (Bolt carries it in its own messages). */
  authenticateToken(token: string): AuthVerdict {
    const digest = digestOf(token);
    let found = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      // Every digest is compared, whatever matched before.
      if (timingSafeEqual(digest, this.#digests[i]!) && found < 0) found = i;
    }
    return found < 0 ? { refused: 'invalid' } : { role: this.#roles[found]!, token: found };
  }
}

function fail(where: string, detail: string): never {
  throw new TypeError(`${where} ${detail}`);
}

/**
 * Checks `config` (ServiceConfig.auth or the entries of an auth file, named by `where` in
 * errors) and builds its Authenticator; null when `config` is undefined.
 */
export function resolveAuth(config: unknown, where = 'ServiceConfig.auth'): Authenticator | null {
  if (config === undefined) return null;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    fail(where, 'must be an object { tokens: [{ token | sha256, role }] }');
  }
  const tokens = (config as { tokens?: unknown }).tokens;
  for (const key of Object.keys(config)) {
    if (key !== 'tokens') fail(where, `has an unknown field '${key}'`);
  }
  if (!Array.isArray(tokens) || tokens.length === 0) {
    fail(`${where}.tokens`, 'must be a non-empty array of { token | sha256, role }');
  }
  const entries: { digest: Buffer; role: Role }[] = [];
  const seen = new Map<string, number>();
  tokens.forEach((entry: unknown, index: number) => {
    const at = `${where}.tokens[${index}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      fail(at, 'must be an object { token | sha256, role }');
    }
    const { token, sha256, role } = entry as AuthToken;
    for (const key of Object.keys(entry)) {
      if (key !== 'token' && key !== 'sha256' && key !== 'role') fail(at, `has an unknown field '${key}'`);
    }
    if (!ROLES.includes(role))
      fail(`${at}.role`, `must be one of ${ROLES.join(', ')}, got ${JSON.stringify(role)}`);
    let digest: Buffer;
    if (token !== undefined && sha256 !== undefined) fail(at, 'gives both token and sha256; give one');
    if (token !== undefined) {
      if (typeof token !== 'string' || !TOKEN_PATTERN.test(token) || token.length > MAX_TOKEN_LENGTH) {
        fail(`${at}.token`, 'must be a string of visible ASCII characters without spaces');
      }
      if (token.length < MIN_TOKEN_LENGTH) {
        fail(`${at}.token`, `must be at least ${MIN_TOKEN_LENGTH} characters long (use a random one)`);
      }
      digest = digestOf(token);
    } else if (sha256 !== undefined) {
      if (typeof sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256)) {
        fail(`${at}.sha256`, 'must be the 64 hex digits of a SHA-256 digest');
      }
      digest = Buffer.from(sha256, 'hex');
    } else {
      fail(at, 'needs a token or its sha256');
    }
    const key = digest.toString('hex');
    const earlier = seen.get(key);
    if (earlier !== undefined) fail(at, `is the same token as entry ${earlier}`);
    seen.set(key, index);
    entries.push({ digest, role });
  });
  return new Authenticator(entries);
}

/**
 * Reads an auth file: a JSON array of `{ "token" | "sha256", "role" }` (or an object
 * `{ "tokens": [...] }`). Errors name the file and what is wrong.
 */
export function readAuthFile(path: string): AuthConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the auth file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the auth file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const config = (Array.isArray(parsed) ? { tokens: parsed } : parsed) as AuthConfig;
  resolveAuth(config, `the auth file ${path}:`);
  return config;
}

/** Whether the service bound to `host` can only be reached from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  return (
    lower === 'localhost' ||
    lower === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)
  );
}
