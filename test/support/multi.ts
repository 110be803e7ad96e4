// Processes for the multi-copy suites (test/multi): a compiled server started as its own process (own data dir, port 0),
// killed or stopped, and a small round-robin balancer in the test's process in front of several of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SERVICE_CLI = 'server/provider/dist/provider/cli.js';
export const MERCHANT_CLI = 'dist/server/merchant.js';
/** What a service copy and a merchant copy print once they listen (the URL is the match's first group). */
export const SERVICE_READY = /sandbox on (http:\/\/\S+)/;
export const MERCHANT_READY = /"url":"(http:[^"]+)"/;

export interface Proc { child: ChildProcess; url: string; dataDir: string; output: string[]; alive: boolean }

export async function startProc(cli: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Proc> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-multi-'));
  const output: string[] = [];
  const child = spawn(process.execPath, [cli], { env: { ...process.env, KASIR_DATA_DIR: dataDir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  child.once('exit', () => { proc.alive = false; });
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
export async function balancer(targets: () => Proc[]) {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const live = targets().filter((t) => t.alive);
      const attempt = (tries: number) => {
        if (tries >= live.length) {
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 502, error: 'Bad Gateway', message: 'no live target' }));
          return;
        }
        const target = new URL(live[(next++) % live.length]!.url);
        const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
        const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        });
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
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
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
