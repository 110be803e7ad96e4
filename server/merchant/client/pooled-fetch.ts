// The payment-service client's default fetch: undici's request() over a keep-alive pool, its answer handed back as a
// Response. The platform's fetch runs on the same library but builds WHATWG requests and streams around each call: about
// twice the CPU per call (docs/benchmarks.md), paid on the shop's event loop by every call and by the follower's
// thousands of reads of open checkouts. The client's answers are small JSON envelopes, read whole.
import { Agent, request } from 'undici';

/** One pool for the process: connections to the service are kept alive between calls, as the global fetch does. */
const pool = new Agent({ keepAliveTimeout: 10_000 });

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Like fetch with a URL or string, `redirect: 'error'` honoured, failures as fetch reports them (TypeError, cause). */
export const pooledFetch: typeof fetch = async (input, init = {}) => {
  const { signal } = init;
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(input instanceof Request ? input.url : input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
      signal: signal ?? undefined,
      dispatcher: pool,
    });
  } catch (err) {
    // As fetch: an abort rejects with the signal's reason (the client's timeout is a TimeoutError), the rest as
    // TypeError('fetch failed') with the network's error (ECONNREFUSED, ...) as its cause.
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  const { statusCode, headers, body } = answer;
  if (init.redirect === 'error' && statusCode >= 300 && statusCode < 400) {
    await body.dump().catch(() => undefined);
    throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect (HTTP ${statusCode})`) });
  }
  let text: string;
  try {
    text = await body.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  const answered = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const each of value) answered.append(name, each);
    else if (value !== undefined) answered.set(name, value);
  }
  return new Response(NULL_BODY.has(statusCode) ? null : text, { status: statusCode, headers: answered });
};
