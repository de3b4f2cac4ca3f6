/**
 * The Redis task store's atomic steps, as Lua scripts run on the Redis server (its clock: `TIME`, so replicas'
 * clocks do not matter). Layout, under the configured key prefix P:
 * - `P task:<id>`: a hash — `json` (the record's body, never read by a script), `owner`, `status`, `rev`,
 *   `created`, `ttl`, `updated`, `redrives`, and while running `holder` / `until` (the lease). It expires at
 *   created + ttl (PEXPIREAT): expiry is Redis's job.
 * - `P tasks:all`: every live task, scored by its expiry (total bound).
 * - `P tasks:owner:<hash of the owner>`: the owner's tasks, scored by creation (list, per-owner bound); members whose
 *   hash is gone are dropped when the owner next creates a task.
 * - `P tasks:leases`: running tasks, scored by when their lease lapses (re-drives).
 * - channel `P tasks:changed`: a task id after each change, so any replica's watchers wake.
 * Scripts touch keys they compute from a prefix (the owner's tasks): one Redis server, not a Cluster (as for limits).
 */

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const TERMINAL = `local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end`;

/** KEYS: task, owner index, all, leases. ARGV: id, owner, json, ttlMs, leaseMs, holder, maxPerOwner, maxTotal, task key prefix. */
export const CREATE_LUA = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 1 then return {'duplicate_id', 0, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local held, first = 0, nil
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local expires = redis.call('ZSCORE', KEYS[3], id)
  if not expires then redis.call('ZREM', KEYS[2], id) else
    held = held + 1
    if not first or tonumber(expires) < first then first = tonumber(expires) end
  end
end
if held >= tonumber(ARGV[7]) then return {'owner_full', held, first - now} end
local total = redis.call('ZCARD', KEYS[3])
if total >= tonumber(ARGV[8]) then
  local soonest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  return {'store_full', total, tonumber(soonest[2]) - now}
end
local ttl, lease = tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'json', ARGV[3], 'owner', ARGV[2], 'status', 'working', 'rev', 1, 'created', now, 'ttl', ttl,
  'updated', now, 'redrives', 0, 'holder', ARGV[6], 'until', now + lease)
redis.call('PEXPIREAT', KEYS[1], now + ttl)
redis.call('ZADD', KEYS[2], now, ARGV[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[4], now + lease, ARGV[1])
return {'ok', now, 0}`;

/**
 * A compare-and-set of the record's body on its revision: the change is computed by the replica from the record it
 * read, and written only if nobody changed it since. KEYS: task, leases. ARGV: expected rev, json, status, id,
 * channel, ended ('1': the lease goes).
 */
export const SET_IF_REV_LUA = `${NOW}
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {'unknown', 0, 0} end
if rev ~= ARGV[1] then return {'conflict', 0, 0} end
local next = tonumber(rev) + 1
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'status', ARGV[3], 'rev', next, 'updated', now)
if ARGV[6] == '1' then
  redis.call('HDEL', KEYS[1], 'holder', 'until')
  redis.call('ZREM', KEYS[2], ARGV[4])
end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return {'ok', next, now}`;

/** KEYS: task, leases. ARGV: holder, leaseMs, id. Answers held, lost or ended. */
export const HEARTBEAT_LUA = `${NOW}
${TERMINAL}
local f = redis.call('HMGET', KEYS[1], 'status', 'holder')
if not f[1] or terminal(f[1]) then return 'ended' end
if f[2] ~= ARGV[1] then return 'lost' end
local lapses = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'until', lapses)
redis.call('ZADD', KEYS[2], lapses, ARGV[3])
return 'held'`;

/** KEYS: leases. ARGV: holder, leaseMs, max, task key prefix, channel. Answers the ids taken over. */
export const CLAIM_LAPSED_LUA = `${NOW}
${TERMINAL}
local max, lease = tonumber(ARGV[3]), tonumber(ARGV[2])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max * 4 + 16)) do
  if #out >= max then break end
  local key = ARGV[4] .. id
  local f = redis.call('HMGET', key, 'status', 'until')
  if not f[1] or terminal(f[1]) then redis.call('ZREM', KEYS[1], id)
  elseif tonumber(f[2]) <= now then
    redis.call('HSET', key, 'holder', ARGV[1], 'until', now + lease)
    redis.call('HINCRBY', key, 'redrives', 1)
    redis.call('HINCRBY', key, 'rev', 1)
    redis.call('ZADD', KEYS[1], now + lease, id)
    redis.call('PUBLISH', ARGV[5], id)
    out[#out + 1] = id
  end
end
return out`;

/** KEYS: all. Answers the live tasks in all. */
export const COUNT_ALL_LUA = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;
