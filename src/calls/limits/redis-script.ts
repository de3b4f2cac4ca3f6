/**
 * The Redis side of the limit store: one Lua script that takes a request
 * from a key's allowance atomically (so N replicas sharing the server enforce
 * one limit), and the names of the keys it works on.
 *
 * Same arithmetic as local-counters.ts, with two differences that make it
 * hold across replicas: time is the Redis server's (TIME), so replicas with
 * skewed clocks agree; and the in-flight count is a sorted set of leases
 * (member = random lease id, score = expiry in ms) that the script prunes, so
 * the slots of a replica that died mid-call come back after the lease bound
 * instead of leaking.
 */
import { createHash } from 'node:crypto';

/**
 * KEYS[1]: the token bucket, a hash (t = tokens, u = last update, ms).
 * KEYS[2]: the leases, a sorted set.
 * ARGV: requestsPerMinute, burst, maxInFlight, leaseMs, leaseId.
 * Returns {1} when admitted, {0, 1} when too many are in flight, {0, 2, ms to wait} when rate limited.
 * Every key written gets a TTL after which its absence means the same as its content: idle keys vanish.
 */
export const ACQUIRE_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rpm, burst, maxInFlight, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if maxInFlight > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= maxInFlight then return {0, 1} end
end
if rpm > 0 then
  local capacity = math.max(1, burst)
  local perMs = rpm / 60000
  local state = redis.call('HMGET', KEYS[1], 't', 'u')
  local tokens, updated = tonumber(state[1]), tonumber(state[2])
  if tokens == nil or updated == nil then tokens, updated = capacity, now end
  tokens = math.min(capacity, tokens + math.max(0, now - updated) * perMs)
  if tokens < 1 then return {0, 2, math.ceil((1 - tokens) / perMs)} end
  tokens = tokens - 1
  redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / perMs) + 1000)
end
if maxInFlight > 0 then
  redis.call('ZADD', KEYS[2], now + leaseMs, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], leaseMs + 1000)
end
return {1}
`;

/** Keys longer than this (or with characters outside printable ASCII, or braces) are hashed. */
const MAX_PLAIN_KEY = 200;

/**
 * The two Redis keys of a limit key. A readable key stays readable (operators
 * look at them with redis-cli); a long or odd one becomes `#` and its SHA-256,
 * so a client-chosen name cannot make keys unbounded. The braces are a Redis
 * Cluster hash tag: both keys of one limit land on the same node, as a script
 * needs.
 */
export function redisKeys(prefix: string, key: string): { bucket: string; leases: string } {
  const plain = key.length <= MAX_PLAIN_KEY && /^[\x20-\x7e]*$/.test(key) && !/[{}]/.test(key) && !key.startsWith('#');
  const id = plain ? key : `#${createHash('sha256').update(key).digest('base64url')}`;
  return { bucket: `${prefix}{${id}}:rate`, leases: `${prefix}{${id}}:leases` };
}

export type ScriptAnswer = { admitted: true } | { admitted: false; reason: 'too_many_in_flight' } | { admitted: false; reason: 'rate_limited'; waitMs: number };

/**
 * Reads the script's reply, exactly one of its three shapes ({1}, {0, 1}, {0, 2, wait}: integers only); anything
 * else is a protocol error (thrown, so it counts as the store failing): a Redis answering garbage admits nothing.
 */
export function readAnswer(reply: unknown): ScriptAnswer {
  if (Array.isArray(reply) && reply.every((n) => Number.isSafeInteger(n))) {
    const [admitted, why, waitMs] = reply as number[];
    if (admitted === 1 && reply.length === 1) return { admitted: true };
    if (admitted === 0 && why === 1 && reply.length === 2) return { admitted: false, reason: 'too_many_in_flight' };
    if (admitted === 0 && why === 2 && reply.length === 3 && waitMs! >= 0) return { admitted: false, reason: 'rate_limited', waitMs: waitMs! };
  }
  throw new Error('unexpected reply from the limit script');
}
