// Which shared state a merchant backend runs on: Redis when REDIS_URL is set (any number of copies), else this
// process's own (kept in KASIR_DATA_DIR, or in memory).
import { resolve } from 'node:path';
import type { Logger } from '../../common/log.js';
import { merchantStateFile, type MerchantConfig } from '../config.js';
import { RedisState } from './redis-state.js';
import { LocalState, type SharedState } from './shared-state.js';

/** `dataDirIsDefault`: no dataDir option nor KASIR_DATA_DIR was given (see localState). */
export function openSharedState(config: MerchantConfig, dataDirIsDefault: boolean, log: Logger): SharedState {
  return config.redisUrl
    ? new RedisState({ url: config.redisUrl, prefix: config.redisPrefix, timeoutMs: config.redisTimeoutMs }, (err) =>
        log.error({ err: err.message }, 'redis'),
      )
    : localState(config.dataDir, dataDirIsDefault, log);
}

/**
 * One process's state: in `dataDir` (memory when false). The default directory, when it cannot be written (a
 * read-only file system), falls back to memory with a warning instead of failing at start; `check` then says so.
 */
function localState(dataDir: string | false, isDefault: boolean, log: Logger): LocalState {
  if (!dataDir) return new LocalState();
  try {
    return new LocalState(merchantStateFile(resolve(dataDir))); // where it was at the start, whatever the cwd later
  } catch (err) {
    if (!isDefault) throw err;
    log.warn(
      { dataDir, err: err instanceof Error ? err.message : String(err), check: ['KASIR_DATA_DIR', 'REDIS_URL'] },
      `the state cannot be kept in ${dataDir}: it is kept in memory and lost on restart (orders behind pending payments with it); set KASIR_DATA_DIR to a writable directory, or REDIS_URL`,
    );
    return new LocalState();
  }
}
