// What the parts of one service instance see of its deposit-change feed (ProviderDeps.changes): deposits/changes.ts
// is the feed itself; the domain announces its changes to it, the read cache, the telemetry and the dispatcher listen.
import type { Logger } from '../../common/log.js';

/** Called with the public depositId of a deposit that changed; '' means "anything may have changed" (a missed span). */
type ChangeListener = (depositId: string) => void;

export interface ChangeFeed {
  /** Calls `listener` for every change from now on; returns what unsubscribes. */
  on(listener: ChangeListener): () => void;
  /** Tells the listeners that `depositId` changed (once the change committed, or when it may have). */
  announce(depositId: string): void;
  /**
   * Answers true once every change committed before the call has been announced here (a round trip on the LISTEN
   * connection); false when this copy does not hear other copies (not listening, or its connection is down).
   */
  heardUpToNow(): Promise<boolean>;
  /** Hears every copy's changes from PostgreSQL until close(). */
  listen(databaseUrl: string, logger: Logger): void;
  close(): Promise<void>;
}
