// What Kùzu's Database and Connection share: lazy opening by init()/initSync(), and closing,
// which waits for an opening in progress (close) or refuses to (closeSync).

import { usageError } from './errors.js';

const ONGOING_INIT = 'There is an ongoing asynchronous initialization. Please wait for it to finish.';

/** The state both classes expose under Kùzu's names (its tests read them). */
export interface Lifecycle {
  _isInitialized: boolean;
  _initPromise: Promise<void> | null;
  _isClosed: boolean;
  closeSync(): void;
}

/** `target.close()`: closes it once an opening in progress has settled. */
export async function closeAfterInit(target: Lifecycle): Promise<void> {
  if (target._isClosed) return;
  if (!target._isInitialized && target._initPromise !== null) {
    try {
      await target._initPromise;
    } catch {
      // It did not open: closing marks it closed.
    }
  }
  target.closeSync();
}

/** Whether `target.closeSync()` has work to do; throws while an opening is in progress. */
export function beginCloseSync(target: Lifecycle): boolean {
  if (target._isClosed) return false;
  if (!target._isInitialized && target._initPromise !== null) throw usageError(ONGOING_INIT);
  return true;
}
