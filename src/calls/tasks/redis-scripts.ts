/**
 * The Redis task store's atomic steps, as Lua scripts run on the Redis server (its clock: `TIME`, so replicas'
 * clocks do not matter). Layout, under the configured key prefix P:
 * - `P task:<id>`: a hash — `json` (the record's body, never read by a script), `owner`, `status`, `rev`,
 *   `created`, `ttl`, `updated`, `redrives`, and while running `holder` / `until` (the lease). It expires at
 *   created + ttl (PEXPIREAT): expiry is Redis's job. `unconfirmed` from its creation until its creator, having had
 *   the creation's answer in time, confirms it (at once, and at each renewal): a task whose lease lapses unconfirmed
 *   is one its creator answered as refused and died before removing (FORGET_LUA), and is removed, never taken over.
 * - `P tasks:all`: every live task, scored by its expiry (total bound).
 * - `P tasks:owner:<hash of the owner>`: the owner's tasks scored by creation (a `tasks/list` page is a range of it),
 *   and `…:exp`, the same tasks scored by expiry (the per-owner bound is a count of a range). Neither is ever walked
 *   whole: a member whose task expired is dropped when a creation or a page meets it (a bounded number each time).
 * - `P tasks:leases`: running tasks, scored by when their lease lapses (re-drives).
 * - `P tasks:clock`: when a script last ran (`seen`) and when Redis last came back from a pause (`resumed`): a gap
 *   longer than any replica leaves between its renewals means Redis (or every replica) stood still, and the leases
 *   that lapsed meanwhile are not taken over until their runners have had a lease's time to renew them.
 * - channel `P tasks:changed`: a task id after each change, so any replica's watchers wake.
 * Every script's work is bounded by its arguments (a page, a batch of leases, a claim's `max`), never by how many
 * tasks an owner or the store holds (bench: `npm run bench:tasks`). Scripts touch keys they compute from a prefix (a
 * page's tasks): one Redis server, not a Cluster (as for limits).
 */

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const TERMINAL = `local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end`;

/** Expired members of an owner's two indexes dropped per creation or page (each member is dropped once). */
const SWEEP = 64;

/**
 * Notes the time in the clock hash and answers when Redis last resumed from a pause: a gap since the last note longer
 * than `pause` (ms) is one. A first note (no clock yet: a new or emptied Redis) counts as a resume too.
 */
const PAUSE = `local function resumedAt(clock, pause)
  local seen = tonumber(redis.call('HGET', clock, 'seen') or '0')
  local resumed = tonumber(redis.call('HGET', clock, 'resumed') or '0')
  if now - seen > pause then resumed = now; redis.call('HSET', clock, 'resumed', now) end
  redis.call('HSET', clock, 'seen', now)
  redis.call('PEXPIRE', clock, 86400000)
  return resumed
end`;

/**
 * KEYS: task, owner (by creation), owner (by expiry), all, leases. ARGV: id, owner, json, ttlMs, leaseMs, holder,
 * maxPerOwner, maxTotal, deadline (Redis epoch ms), poll interval, status message ('' for none). A creation run after its deadline is refused ('late', with Redis's
 * time): the replica that sent it has answered, or will, that no task was made (redis-clock.ts).
 */
export const CREATE_LUA = `${NOW}
if now > tonumber(ARGV[9]) then return {'late', now, 0} end
if redis.call('EXISTS', KEYS[1]) == 1 then return {'duplicate_id', 0, 0} end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, ${SWEEP})) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
end
local held = redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf')
if held >= tonumber(ARGV[7]) then
  local first = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return {'owner_full', held, tonumber(first[2]) - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local total = redis.call('ZCARD', KEYS[4])
if total >= tonumber(ARGV[8]) then
  local soonest = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
  return {'store_full', total, tonumber(soonest[2]) - now}
end
local ttl, lease = tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'json', ARGV[3], 'owner', ARGV[2], 'status', 'working', 'rev', 1, 'created', now, 'ttl', ttl,
  'updated', now, 'redrives', 0, 'holder', ARGV[6], 'until', now + lease, 'poll', ARGV[10], 'unconfirmed', 1)
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'msg', ARGV[11]) end
redis.call('PEXPIREAT', KEYS[1], now + ttl)
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
for i = 2, 3 do
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
redis.call('ZADD', KEYS[4], now + ttl, ARGV[1])
redis.call('ZADD', KEYS[5], now + lease, ARGV[1])
return {'ok', now, 0}`;

/**
 * A creation the replica refused after sending it (no answer within commandTimeoutMs): if Redis carried it out after
 * all, before its deadline, the task is removed before anyone runs it — unless another replica already took it over
 * (`redrives` > 0: it ran, and the re-drive's end stands). KEYS: task, owner (by creation), owner (by expiry), all,
 * leases. ARGV: id, channel. Answers 1 when a task was removed.
 */
export const FORGET_LUA = `local redrives = redis.call('HGET', KEYS[1], 'redrives')
if redrives ~= '0' then return 0 end
redis.call('DEL', KEYS[1])
for i = 2, 5 do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[1])
return 1`;

/**
 * A compare-and-set of the record's body on its revision: the change is computed by the replica from the record it
 * read, and written only if nobody changed it since. KEYS: task, leases. ARGV: expected rev, json, status, id,
 * channel, ended ('1': the lease goes), holder ('' for a caller's change; the runner's names itself, and is refused
 * with 'lost' when another replica holds the lease: a runner that lost its task writes no end), status message ('1'
 * and the message, or '0': none). The message is kept beside the body too, for a listing that reads no body.
 */
export const SET_IF_REV_LUA = `${NOW}
local f = redis.call('HMGET', KEYS[1], 'rev', 'holder')
if not f[1] then return {'unknown', 0, 0} end
if f[1] ~= ARGV[1] then return {'conflict', 0, 0} end
if ARGV[7] ~= '' and f[2] ~= ARGV[7] then return {'lost', 0, 0} end
local next = tonumber(f[1]) + 1
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'status', ARGV[3], 'rev', next, 'updated', now)
if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'msg', ARGV[9]) else redis.call('HDEL', KEYS[1], 'msg') end
if ARGV[6] == '1' then
  redis.call('HDEL', KEYS[1], 'holder', 'until')
  redis.call('ZREM', KEYS[2], ARGV[4])
end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return {'ok', next, now}`;

/**
 * Renews one replica's leases in one step. KEYS: leases, clock. ARGV: holder, leaseMs, task key prefix, pauseMs,
 * then the task ids. Answers Redis's time, then held, lost or ended for each id, in order.
 */
export const RENEW_LUA = `${NOW}
${TERMINAL}
${PAUSE}
resumedAt(KEYS[2], tonumber(ARGV[4]))
local lapses = now + tonumber(ARGV[2])
local out = {now}
for i = 5, #ARGV do
  local key = ARGV[3] .. ARGV[i]
  local f = redis.call('HMGET', key, 'status', 'holder')
  if not f[1] or terminal(f[1]) then out[#out + 1] = 'ended'
  elseif f[2] ~= ARGV[1] then out[#out + 1] = 'lost'
  else
    redis.call('HSET', key, 'until', lapses)
    redis.call('HDEL', key, 'unconfirmed')
    redis.call('ZADD', KEYS[1], lapses, ARGV[i])
    out[#out + 1] = 'held'
  end
end
return out`;

/**
 * Takes over lapsed leases. KEYS: leases, clock, all. ARGV: holder, leaseMs, max, task key prefix, channel, pauseMs,
 * graceMs. Nothing is taken within graceMs of Redis resuming from a pause (PAUSE): the runners of those tasks may be
 * alive, and get that long to renew. A lapsed task its creator never confirmed was refused (the layout above): it is
 * removed. Answers two lists: each task taken over as its id followed by its hash's fields and values; each task
 * removed as its id and owner (the replica drops it from the owner's indexes, whose keys it computes).
 */
export const CLAIM_LAPSED_LUA = `${NOW}
${TERMINAL}
${PAUSE}
local resumed = resumedAt(KEYS[2], tonumber(ARGV[6]))
if now < resumed + tonumber(ARGV[7]) then return {} end
local max, lease = tonumber(ARGV[3]), tonumber(ARGV[2])
local out, removed = {}, {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max * 4 + 16)) do
  if #out >= max then break end
  local key = ARGV[4] .. id
  local f = redis.call('HMGET', key, 'status', 'until', 'unconfirmed', 'owner')
  if not f[1] or terminal(f[1]) then redis.call('ZREM', KEYS[1], id)
  elseif tonumber(f[2]) <= now and f[3] then
    removed[#removed + 1] = id
    removed[#removed + 1] = f[4]
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[3], id)
    redis.call('PUBLISH', ARGV[5], id)
  elseif tonumber(f[2]) <= now then
    redis.call('HSET', key, 'holder', ARGV[1], 'until', now + lease)
    redis.call('HINCRBY', key, 'redrives', 1)
    redis.call('HINCRBY', key, 'rev', 1)
    redis.call('ZADD', KEYS[1], now + lease, id)
    redis.call('PUBLISH', ARGV[5], id)
    local row = redis.call('HGETALL', key)
    table.insert(row, 1, id)
    out[#out + 1] = row
  end
end
return {out, removed}`;

/**
 * One `tasks/list` page, newest first. KEYS: owner (by creation), owner (by expiry). ARGV: the cursor's creation time
 * ('+inf' for the first page), the cursor's task id ('' for the first page), limit, task key prefix. A task of
 * the cursor's own millisecond is after it when its id sorts before the cursor's (the order list-cursor.ts defines).
 * Answers: '1' when more follow or '0', the last position's time and id (the next cursor), then each task as its id
 * followed by its hash's fields and values, without the body (`json`: a result may be megabytes, and a listing shows
 * none of it), unless the task predates `poll` and `msg` beside it. At most limit * 4 + 64 members are looked at; a page cut short by expired
 * members still says more follow, from where it stopped.
 */
export const LIST_PAGE_LUA = `local LISTED = {'owner', 'status', 'rev', 'created', 'ttl', 'updated', 'redrives', 'holder', 'until', 'msg', 'poll'}
local limit = tonumber(ARGV[3])
local budget = limit * 4 + ${SWEEP}
local rows, gone = {}, {}
local lastScore, lastId, more = ARGV[1], ARGV[2], '0'
local chunk = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, budget + 1)
local looked, stopped = 0, false
for i = 1, #chunk, 2 do
  local id, score = chunk[i], chunk[i + 1]
  if ARGV[2] == '' or tonumber(score) ~= tonumber(ARGV[1]) or id < ARGV[2] then
    if #rows >= limit or looked >= budget then more = '1'; stopped = true; break end
    looked = looked + 1
    local values = redis.call('HMGET', ARGV[4] .. id, unpack(LISTED))
    if not values[2] then gone[#gone + 1] = id
    else
      local row = {id}
      for i, field in ipairs(LISTED) do
        if values[i] then row[#row + 1] = field; row[#row + 1] = values[i] end
      end
      if not values[11] then row[#row + 1] = 'json'; row[#row + 1] = redis.call('HGET', ARGV[4] .. id, 'json') end
      rows[#rows + 1] = row
    end
    lastScore, lastId = score, id
  end
end
if not stopped and #chunk == 2 * (budget + 1) then more = '1' end
for _, id in ipairs(gone) do redis.call('ZREM', KEYS[1], id); redis.call('ZREM', KEYS[2], id) end
local out = {more, lastScore, lastId}
for _, row in ipairs(rows) do out[#out + 1] = row end
return out`;

/** KEYS: an index scored by expiry (all, or an owner's). Answers the live tasks in it. */
export const COUNT_LIVE_LUA = `${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;
