// A server in front of another, for the tests and benchmarks that put a proxy, a shop's origin or a slow network
// between the browser and the merchant backend.
import { request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';

export interface ForwardOptions {
  /** Send the browser's Host header on (as a proxy that keeps it); by default the target's own, as nginx's proxy_pass. */
  keepHost?: boolean;
  /** Added to the target's answer. */
  answerHeaders?: OutgoingHttpHeaders;
  /** Held this many ms before it is sent on (a network's latency). */
  delayMs?: number;
}

/** Sends `req` on to `target` and its answer back; a 502 when the target cannot be reached. */
export function forward(req: IncomingMessage, res: ServerResponse, target: URL, options: ForwardOptions = {}): void {
  const headers = options.keepHost ? req.headers : { ...req.headers, host: target.host };
  const send = () => {
    const forwarded = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...options.answerHeaders });
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  };
  if (options.delayMs) setTimeout(send, options.delayMs);
  else send();
}
