// A webhook may only reach a public address: never the service's own private network, a link-local or a cloud
// metadata endpoint (server-side request forgery). Sandbox mode allows loopback too (the shop on the same machine),
// and nothing else that is not public. The URL is checked when it is saved, and each send resolves the host again,
// checks every address and connects to a checked one, so a name that is re-pointed after the check (DNS rebinding) is
// refused too.
import { lookup as systemLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../../common/errors.js';

/** Every address a host name resolves to (as dns.lookup with `all`); tests inject their own. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** A webhook target that resolves to an address it may not reach. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  /** True when the host did not resolve (rather than resolving to a refused address). */
  constructor(
    message: string,
    readonly unresolved = false,
  ) {
    super(message);
  }
}

/**
 * The class of a non-public address (loopback, private, linkLocal, uniqueLocal, carrierGradeNat, unspecified, ...),
 * or undefined for a public unicast one. Only global unicast passes: every range ipaddr.js names is refused, IPv4
 * inside IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address. 169.254.169.254 is linkLocal, fd00:ec2::254 uniqueLocal.
 */
export function nonPublicRange(address: string): string | undefined {
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

/** Where webhooks may go: how hosts are resolved, and whether loopback is allowed besides public addresses (sandbox mode). */
export interface AddressPolicy {
  resolve: HostResolver;
  allowLoopback: boolean;
}

/**
 * The addresses of `hostname` (an IP literal is its own), every one of them public (or loopback, when the policy
 * allows it); else BlockedAddressError.
 */
export async function publicAddresses(
  hostname: string,
  { resolve, allowLoopback }: AddressPolicy,
): Promise<LookupAddress[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new BlockedAddressError(
        `${host} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`,
        true,
      );
    }
  }
  if (addresses.length === 0) throw new BlockedAddressError(`${host} does not resolve to any address`, true);
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range && !(allowLoopback && range === 'loopback')) {
      throw new BlockedAddressError(
        `${host} resolves to ${address}, a ${range} address; webhooks only go to public addresses${allowLoopback ? ' or, in sandbox mode, loopback ones' : ''}`,
      );
    }
  }
  return addresses;
}

/**
 * The dashboard's check of a webhook URL being saved: a 400 naming the problem. In sandbox mode (loopback allowed) a
 * name that does not resolve yet is accepted (an offline sandbox, a receiver not started yet); each send checks again.
 */
export async function assertPublicWebhookUrl(url: string, policy: AddressPolicy): Promise<void> {
  try {
    await publicAddresses(new URL(url).hostname, policy);
  } catch (err) {
    if (!(err instanceof BlockedAddressError)) throw err;
    if (policy.allowLoopback && err.unresolved) return;
    throw new ApiError(400, `Webhook URL refused: ${err.message}`);
  }
}

/**
 * A `lookup` for node:http that answers only checked addresses, so the connection goes to an address that was
 * checked (IP literals do not go through lookup: the sender checks those itself, with publicAddresses).
 */
export function publicOnlyLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    publicAddresses(hostname, policy).then(
      (found) => {
        const addresses = options.family ? found.filter((a) => a.family === options.family) : found;
        if (addresses.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}
