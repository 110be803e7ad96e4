// Shoppers polling, as they do: each of `shoppers` keeps one keep-alive connection and reads its checkout's status
// once per `intervalMs`, starting at a random moment of the first interval (shoppers do not arrive in step, which a
// load generator's fixed rate per connection would make them). What comes before `warmUpSeconds` is not measured (the
// server's first requests), nor is any shopper's first poll: it opens the connection, 1,000 of them within the first
// interval, the slowest tenth of a 10 s run's samples (their p99 is told apart, as connectP99Ms). Runs in its own
// process (the figures measure the server); reads the options as JSON on stdin, prints {reads, p50Ms, p99Ms, maxMs,
// connectP99Ms, non2xx, errors} as JSON.
import { Agent, request } from 'node:http';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, paths, shoppers, intervalMs = 1000, warmUpSeconds = 0, durationSeconds } = JSON.parse(input);
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: shoppers, maxFreeSockets: shoppers });
const latencies = [];
const connects = [];
let non2xx = 0;
let errors = 0;
const measureFrom = Date.now() + warmUpSeconds * 1000;
const end = measureFrom + durationSeconds * 1000;

const poll = (path, first) =>
  new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const measured = Date.now() >= measureFrom;
    const req = request({ host: target.hostname, port: target.port, path, agent, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (first) connects.push(ms);
        else if (measured) {
          latencies.push(ms);
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        }
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
  for (let next = Date.now(), first = true; next < end; next += intervalMs, first = false) {
    await poll(path, first);
    const wait = next + intervalMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
};
await Promise.all(Array.from({ length: shoppers }, (_, i) => shopper(i)));
agent.destroy();
const at = (list, q) => {
  list.sort((a, b) => a - b);
  return Math.round((list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? 0) * 10) / 10;
};
process.stdout.write(
  JSON.stringify({
    reads: latencies.length,
    p50Ms: at(latencies, 0.5),
    p99Ms: at(latencies, 0.99),
    maxMs: at(latencies, 1),
    connectP99Ms: at(connects, 0.99),
    non2xx,
    errors,
  }),
);
