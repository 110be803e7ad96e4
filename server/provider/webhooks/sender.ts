// The HTTP client of the dispatcher: node:http(s) with keep-alive agents (a connection per endpoint is reused from
// one delivery to the next instead of a new TCP and TLS handshake each), and only to public addresses (and loopback in
// sandbox mode), checked at connect time (url-guard.ts). node:http rather than fetch: it takes a `lookup`, which is
// what lets the connection go to the address that was checked; Node ships no importable undici Agent.
import { Agent as HttpAgent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { BlockedAddressError, publicAddresses, publicOnlyLookup, type AddressPolicy } from './url-guard.js';

export interface SenderOptions {
  /** Most open connections to one endpoint (host and port). */
  maxSocketsPerEndpoint: number;
  /** Which addresses may be reached, and how names are resolved. */
  addresses: AddressPolicy;
}

export class WebhookSender {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: SenderOptions) {
    const agent = {
      keepAlive: true,
      maxSockets: options.maxSocketsPerEndpoint,
      maxFreeSockets: options.maxSocketsPerEndpoint,
      scheduling: 'lifo' as const,
    };
    this.http = new HttpAgent(agent);
    this.https = new HttpsAgent(agent);
    this.lookup = publicOnlyLookup(options.addresses);
  }

  /** POSTs `body` and answers the response's status (its body is drained, so the connection is reused). */
  async post(url: string, headers: OutgoingHttpHeaders, body: string, signal: AbortSignal): Promise<number> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:')
      throw new BlockedAddressError(`${target.protocol} URLs cannot receive webhooks`);
    // An IP literal is connected to without a lookup: check it here (a name is checked by the lookup, at connect).
    if (isIP(target.hostname.replace(/^\[|\]$/g, ''))) await publicAddresses(target.hostname, this.options.addresses);
    return new Promise<number>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          agent: secure ? this.https : this.http,
          lookup: this.lookup,
          signal,
        },
        (res) => {
          res.resume();
          res.on('error', () => {});
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
