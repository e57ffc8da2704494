/**
 * The Lua scripts the fleet runs. Scripts run atomically in Redis, which is
 * what makes the probe lease safe (check-then-set and compare-then-delete with
 * no other client in between) and makes a published transition one round
 * trip that cannot half-apply. They are defined on the ioredis client
 * (`defineScripts`), which sends EVALSHA and falls back to EVAL when the
 * server does not know the script yet (a fresh or restarted Redis).
 */
import type { Redis } from 'ioredis';

/**
 * Announce a transition: remember it in the dependency's state hash, list the
 * dependency, publish it. A key's TTL is only ever lengthened here: several
 * hosts write the same hash, and one with a short TTL must not cut short
 * another's long throttle.
 *
 * KEYS: state hash, dependency set. ARGV: host, message, ttl ms, channel, dep.
 * Returns PUBLISH's receiver count.
 */
export const PUBLISH_TRANSITION = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = tonumber(ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
redis.call('SADD', KEYS[2], ARGV[5])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return redis.call('PUBLISH', ARGV[4], ARGV[2])
`;

/**
 * Take the probe lease if nobody holds it. The fencing token is drawn only by
 * the winner, so tokens of granted leases increase by one. A missing counter
 * starts at the caller's wall clock (ms) rather than 0: a Redis that lost its
 * data (no persistence, restart) then still hands out larger tokens than
 * before, as long as fewer than ~1000 leases per second were granted.
 *
 * (`string.format('%d')`: plain concatenation prints Lua numbers with 14 significant digits.)
 *
 * KEYS: lease, fence counter. ARGV: host, ttl ms, seed. Returns {1, token} or {0, holder}.
 */
export const ACQUIRE_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder then return {0, holder} end
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SET', KEYS[2], ARGV[3]) end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%d', token), 'PX', ARGV[2])
return {1, token}
`;

/** Delete the lease only if it is still ours. KEYS: lease. ARGV: `<host>:<token>`. Returns 1 or 0. */
export const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Script replies as RESP gives them: integers, strings, arrays of those. */
type Reply = number | string | null | Reply[];

/** The scripts as commands on the client, once `defineScripts` ran. Arguments as documented above. */
export interface FleetScripts {
  breakerbarPublishTransition(
    stateKey: string,
    depsKey: string,
    host: string,
    message: string,
    ttlMs: string,
    channel: string,
    dep: string,
  ): Promise<Reply>;
  breakerbarAcquireLease(leaseKey: string, fenceKey: string, host: string, ttlMs: string, seed: string): Promise<Reply>;
  breakerbarReleaseLease(leaseKey: string, value: string): Promise<Reply>;
}

/** Defines the scripts on `client` (names prefixed, so they cannot shadow a Redis command). */
export function defineScripts(client: Redis): Redis & FleetScripts {
  client.defineCommand('breakerbarPublishTransition', { numberOfKeys: 2, lua: PUBLISH_TRANSITION });
  client.defineCommand('breakerbarAcquireLease', { numberOfKeys: 2, lua: ACQUIRE_LEASE });
  client.defineCommand('breakerbarReleaseLease', { numberOfKeys: 1, lua: RELEASE_LEASE });
  return client as Redis & FleetScripts;
}
