// What the protocol front ends (src/http, src/bolt) see of a service: its state, its slot pool,
// its limits, its tokens and its explicit transactions (docs/http-api.md, "States"). The service
// (src/service/service.ts) builds it; nothing here knows a protocol.

import type { Authenticator } from './auth.js';
import type { TpExecutionSlotPool } from './pool.js';
import type { TransactionRegistry } from './session.js';

export const STATUS_NOT_INITED = 'GraphDB service has not been inited!';
export const STATUS_NOT_STARTED = 'GraphDB service has not been started!';
export const STATUS_RUNNING = 'GraphDB service is running ...';

/** The states of a service as `/status` names them. */
export type ServiceState = 'running' | 'stopping' | 'not_started' | 'not_initialized';

/** The limits a front end applies to the requests it reads and queues. */
export interface ServiceLimits {
  /** Largest request body (HTTP) or message (Bolt), in bytes. */
  maxBodyBytes: number;
  /** Requests allowed to wait for a slot. */
  maxWaiting: number;
  /** Longest a request waits for a slot (undefined: no limit). */
  requestTimeoutMs: number | undefined;
}

/** @internal A running service as its front ends use it. */
export interface ServiceRuntime {
  /** The slot pool; null once the service is closed. */
  readonly pool: TpExecutionSlotPool | null;
  readonly limits: ServiceLimits;
  /** The tokens requests must carry; null: none needed. */
  readonly auth: Authenticator | null;
  /** The explicit transactions open (over HTTP and Bolt). */
  readonly transactions: TransactionRegistry;
  /** False once the service is stopping or closed: new requests get SERVICE_UNAVAILABLE. */
  readonly accepting: boolean;
  readonly stopping: boolean;
  readonly state: ServiceState;
  /** The status message of `serviceStatus()`. */
  readonly statusMessage: string;
  readonly startedAt: number;
  readonly executedQueries: number;
}
