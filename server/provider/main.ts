import { listen } from '../common/http-server.js';
import { createProviderApp } from './app.js';
import { loadProviderConfig, type ProviderConfig } from './config.js';
import { openDatabase } from './db/database.js';
import type { ProviderDeps } from './http/env.js';
import { startBackgroundJobs } from './jobs.js';
import { loadJwtSecret } from './secrets.js';
import { seedSandbox, type SandboxCredentials } from './seed.js';

export interface RunningProvider {
  deps: ProviderDeps;
  credentials: SandboxCredentials;
  url: string;
  stop(): Promise<void>;
}

/** Opens the database, seeds the sandbox merchant, and serves the payment service on config.port. */
export async function startProvider(config: ProviderConfig = loadProviderConfig(), options: { now?: () => Date } = {}): Promise<RunningProvider> {
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const deps: ProviderDeps = { db, config, jwtSecret: loadJwtSecret(config.dataDir), now: options.now ?? (() => new Date()) };
  const app = createProviderApp(deps);
  const http = await listen(app.fetch, config.port, '0.0.0.0');
  const port = http.port;
  // With port 0 (tests) the real port is known only now; the seeded URLs must carry it.
  if (config.port === 0) {
    config.port = port;
    config.baseUrl = `http://localhost:${port}`;
  }
  const credentials = await seedSandbox(deps);
  const stopJobs = startBackgroundJobs(deps);
  return {
    deps,
    credentials,
    url: config.baseUrl,
    async stop() {
      await stopJobs();
      await http.close();
      await db.destroy();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const provider = await startProvider();
  console.log(`[provider] payment service sandbox on ${provider.url} (data in ${provider.deps.config.dataDir})`);
  const shutdown = () => provider.stop().finally(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
