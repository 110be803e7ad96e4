// Processes for the multi-copy suites (test/multi): a compiled server started as its own process (own data dir, port 0),
// killed or stopped, a small round-robin balancer in the test's process in front of several of them, and the setup
// both suites share (startCopies): two service copies on one fresh PostgreSQL database and two merchant copies on Redis.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { createTestDatabase, testDatabaseUrl } from './provider';
import { sandboxConnectionEnv } from './sandbox-env';

export const SERVICE_CLI = 'server/provider/dist/provider/cli.js';
const MERCHANT_CLI = 'dist/server/merchant.js';
/** What a service copy and a merchant copy print once they listen (the URL is the match's first group). */
export const SERVICE_READY = /sandbox on (http:\/\/\S+)/;
const MERCHANT_READY = /"url":"(http:[^"]+)"/;

export interface Proc {
  child: ChildProcess;
  url: string;
  dataDir: string;
  output: string[];
  alive: boolean;
}

type Balancer = Awaited<ReturnType<typeof balancer>>;

export interface Copies {
  database: { url: string; drop(): Promise<void> };
  services: Proc[];
  merchants: Proc[];
  /** In front of the service copies (the merchants' KASIR_BASE_URL). */
  serviceBalancer: Balancer;
  /** In front of the merchant copies (the services' KASIR_WEBHOOK_URL). */
  merchantBalancer: Balancer;
  /** The first service copy's sandbox.json. */
  credentials: SandboxCredentials;
  /** Stops every copy and balancer and drops the database (also what a failed start does). */
  stop(): Promise<void>;
}

/**
 * Two copies of the payment service (compiled kasir-sandbox) on a fresh PostgreSQL database and two copies of the
 * merchant backend (dist/server/merchant.js) on one Redis under a prefix of its own, each pair behind a balancer.
 * `serviceEnv` and `merchantEnv` add to (or override) the environment each copy gets. Needs KASIR_TEST_DATABASE_URL,
 * KASIR_TEST_REDIS_URL (npm run test:multi) and a build.
 */
export async function startCopies(options: {
  prefix: string;
  serviceEnv?: NodeJS.ProcessEnv;
  merchantEnv?: NodeJS.ProcessEnv;
}): Promise<Copies> {
  const redisUrl = process.env.KASIR_TEST_REDIS_URL;
  assert.ok(
    testDatabaseUrl && redisUrl,
    'KASIR_TEST_DATABASE_URL and KASIR_TEST_REDIS_URL: run through npm run test:multi',
  );
  for (const cli of [SERVICE_CLI, MERCHANT_CLI])
    assert.ok(existsSync(cli), `${cli} is missing: build first (npm run build)`);
  const services: Proc[] = [];
  const merchants: Proc[] = [];
  const started: Partial<Copies> = { services, merchants };
  const stop = async () => {
    await stopAll([...merchants, ...services]);
    await started.serviceBalancer?.close();
    await started.merchantBalancer?.close();
    await started.database?.drop();
  };
  try {
    const database = (started.database = await createTestDatabase());
    const serviceBalancer = (started.serviceBalancer = await balancer(() => services));
    const merchantBalancer = (started.merchantBalancer = await balancer(() => merchants));
    const serviceEnv = {
      DATABASE_URL: database.url,
      PROVIDER_PORT: '0',
      KASIR_WEBHOOK_URL: `${merchantBalancer.url}/api/webhooks/kasir`,
      KASIR_SCRYPT_N: '1024',
      KASIR_LOG_LEVEL: 'warn',
      PORT: '',
      ...options.serviceEnv,
    };
    services.push(await startProc(SERVICE_CLI, serviceEnv, SERVICE_READY));
    services.push(await startProc(SERVICE_CLI, serviceEnv, SERVICE_READY));
    const credentials = JSON.parse(
      readFileSync(join(services[0]!.dataDir, 'sandbox.json'), 'utf8'),
    ) as SandboxCredentials;
    const merchantEnv = {
      ...sandboxConnectionEnv(credentials, serviceBalancer.url),
      KASIR_CHECKOUT_URL: `${serviceBalancer.url}/checkout`,
      REDIS_URL: redisUrl,
      KASIR_REDIS_PREFIX: `${options.prefix}-${randomUUID()}:`,
      PORT: '0',
      HOST: '127.0.0.1',
      KASIR_LOG_LEVEL: 'info',
      KASIR_CHECKOUT_RATE_LIMIT: '10000',
      ...options.merchantEnv,
    };
    merchants.push(await startProc(MERCHANT_CLI, merchantEnv, MERCHANT_READY));
    merchants.push(await startProc(MERCHANT_CLI, merchantEnv, MERCHANT_READY));
    return { database, services, merchants, serviceBalancer, merchantBalancer, credentials, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export async function startProc(cli: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Proc> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-multi-'));
  const output: string[] = [];
  const child = spawn(process.execPath, [cli], {
    env: { ...process.env, KASIR_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cli} did not start: ${output.join('')}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${cli} exited with ${code}: ${output.join('')}`)));
    child.stdout!.on('data', () => {
      const m = ready.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace('localhost', '127.0.0.1'));
      }
    });
  });
  const proc: Proc = { child, url, dataDir, output, alive: true };
  child.once('exit', () => {
    proc.alive = false;
  });
  return proc;
}

export function kill(proc: Proc) {
  proc.alive = false;
  proc.child.kill('SIGKILL');
}

/**
 * A round-robin HTTP balancer over `targets` (re-read per request): a request whose target refuses the connection is
 * sent to the next live one (bodies are small and buffered); answers, event streams included, are piped back.
 */
async function balancer(targets: () => Proc[]) {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const live = targets().filter((t) => t.alive);
      const attempt = (tries: number) => {
        if (tries >= live.length) {
          res
            .writeHead(502, { 'content-type': 'application/json' })
            .end(JSON.stringify({ statusCode: 502, error: 'Bad Gateway', message: 'no live target' }));
          return;
        }
        const target = new URL(live[next++ % live.length]!.url);
        const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
        const forwarded = request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on('error', () => res.destroy());
          },
        );
        forwarded.on('error', () => {
          if (res.headersSent) res.destroy();
          else attempt(tries + 1);
        });
        forwarded.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Stops every process (SIGTERM, waiting for its exit) and removes its data dir. */
export async function stopAll(procs: Proc[]): Promise<void> {
  for (const proc of procs) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      const exited = new Promise((resolve) => proc.child.once('exit', resolve));
      proc.child.kill('SIGTERM');
      await exited;
    }
    rmSync(proc.dataDir, { recursive: true, force: true });
  }
}
