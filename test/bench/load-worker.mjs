// Runs one autocannon load in its own process, so the load generator never shares an event loop (or a
// core) with the servers it measures. Reads the options as JSON on stdin; prints the result as JSON.
import autocannon from 'autocannon';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const result = await autocannon(JSON.parse(input));
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }),
);
