// The payment-service client's default fetch: undici's request() over a keep-alive pool, answering as much of a
// Response as the client reads (ServiceAnswer). The platform's fetch runs on the same library but builds WHATWG
// requests, streams and Responses around each call: two to three times the CPU per call (docs/benchmarks.md), paid on the
// shop's event loop by every call and by the follower's reads of every open checkout. The client's answers are small
// JSON envelopes, read whole.
import { Agent, request } from 'undici';

/** What the client reads of an answer: a fetch Response is one. */
export interface ServiceAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly statusText: string;
  readonly headers: Pick<Headers, 'has'>;
  text(): Promise<string>;
}

/** How the client sends a call: the platform's fetch (a shop's, a test's counting one), or `pooledFetch`. */
export type ServiceFetch = (input: URL, init: RequestInit) => Promise<ServiceAnswer>;

/** One pool for the process: connections to the service are kept alive between calls, as the global fetch does. */
const pool = new Agent({ keepAliveTimeout: 10_000 });

/** As fetch with `redirect: 'error'` honoured, and failures as fetch reports them (TypeError, with the cause). */
export const pooledFetch: ServiceFetch = async (input, init) => {
  const { signal } = init;
  let text: string;
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
      signal: signal ?? undefined,
      dispatcher: pool,
    });
    if (init.redirect === 'error' && answer.statusCode >= 300 && answer.statusCode < 400) {
      await answer.body.dump().catch(() => undefined);
      throw new Error(`unexpected redirect (HTTP ${answer.statusCode})`);
    }
    text = await answer.body.text();
  } catch (err) {
    // As fetch: an abort rejects with the signal's reason (the client's timeout is a TimeoutError), the rest as
    // TypeError('fetch failed') with the network's error (ECONNREFUSED, ...) as its cause.
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: err });
  }
  const { statusCode, headers } = answer;
  return {
    status: statusCode,
    ok: statusCode >= 200 && statusCode < 300,
    statusText: '',
    headers: { has: (name) => headers[name.toLowerCase()] !== undefined },
    text: async () => text,
  };
};
