// Shoppers polling, as they do: each of `shoppers` keeps one keep-alive connection and reads its checkout's status
// once per `intervalMs`, starting at a random moment of the first interval (shoppers do not arrive in step, which a
// load generator's fixed rate per connection would make them). Runs in its own process (the figures measure the
// server); reads the options as JSON on stdin, prints {reads, p50Ms, p99Ms, maxMs, non2xx, errors} as JSON.
import { Agent, request } from 'node:http';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, paths, shoppers, intervalMs = 1000, durationSeconds } = JSON.parse(input);
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: shoppers, maxFreeSockets: shoppers });
const latencies = [];
let non2xx = 0;
let errors = 0;
const end = Date.now() + durationSeconds * 1000;

const poll = (path) =>
  new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = request({ host: target.hostname, port: target.port, path, agent, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end();
  });

const shopper = async (index) => {
  const path = paths[index % paths.length];
  await new Promise((r) => setTimeout(r, Math.random() * intervalMs));
  for (let next = Date.now(); next < end; next += intervalMs) {
    await poll(path);
    const wait = next + intervalMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
};
await Promise.all(Array.from({ length: shoppers }, (_, i) => shopper(i)));
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) =>
  Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
process.stdout.write(
  JSON.stringify({ reads: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1), non2xx, errors }),
);
