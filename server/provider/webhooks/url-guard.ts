// Outside sandbox mode a webhook may only reach a public address: never the service's own machine, its private
// network or a cloud metadata endpoint (server-side request forgery). The URL is checked when it is saved, and each
// send resolves the host again, checks every address and connects to a checked one, so a name that is re-pointed
// after the check (DNS rebinding) is refused too.
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

/** The addresses of `hostname` (an IP literal is its own), every one of them public; else BlockedAddressError. */
export async function publicAddresses(hostname: string, resolve: HostResolver): Promise<LookupAddress[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new BlockedAddressError(`${host} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`);
    }
  }
  if (addresses.length === 0) throw new BlockedAddressError(`${host} does not resolve to any address`);
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range) throw new BlockedAddressError(`${host} resolves to ${address}, a ${range} address; webhooks only go to public addresses`);
  }
  return addresses;
}

/** The dashboard's check of a webhook URL being saved outside sandbox mode: a 400 naming the problem. */
export async function assertPublicWebhookUrl(url: string, resolve: HostResolver): Promise<void> {
  try {
    await publicAddresses(new URL(url).hostname, resolve);
  } catch (err) {
    if (err instanceof BlockedAddressError) throw new ApiError(400, `Webhook URL refused: ${err.message}`);
    throw err;
  }
}

/**
 * A `lookup` for node:http that answers only checked public addresses, so the connection goes to an address that
 * was checked (IP literals do not go through lookup: the sender checks those itself, with publicAddresses).
 */
export function publicOnlyLookup(resolve: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    publicAddresses(hostname, resolve).then((found) => {
      const addresses = options.family ? found.filter((a) => a.family === options.family) : found;
      if (addresses.length === 0) {
        callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    }, (err: Error) => callback(err, '', 0));
  };
}
